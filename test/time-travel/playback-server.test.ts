import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fileStore } from '../../src/persistence/file-store.js';
import type { ForkRequest } from '../../src/playback/fork-request.js';
import type { SessionStore } from '../../src/persistence/session-store.js';
import { startPlaybackServer, type PlaybackServer } from '../../src/playback/playback-server.js';
import { recordSession } from '../support/recorded-session.js';

let dir: string | undefined;
let server: PlaybackServer | undefined;
afterEach(async () => {
  await server?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
  server = undefined;
  dir = undefined;
});

/** A file store in a fresh temporary directory (removed after the test) holding a recorded session, `original`. */
async function recordedStore(): Promise<SessionStore> {
  dir = await mkdtemp(path.join(os.tmpdir(), 'loopchart-playback-server-'));
  const store = fileStore(dir);
  await recordSession(store, 'original');
  return store;
}

/** A POST of `body` to the page's fork endpoint, as the page sends it (its origin, JSON). */
async function postFork(pageUrl: string, body: object): Promise<{ status: number; answer: { sessionId?: string; running?: boolean; error?: string } }> {
  const url = new URL(pageUrl);
  const response = await fetch(`${url.origin}/api/fork${url.search}`, {
    method: 'POST',
    headers: { origin: url.origin, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, answer: (await response.json()) as { sessionId?: string; running?: boolean } };
}

describe('the playback server forks', () => {
  it('makes one fork, run on once, of a request sent twice with the same request id; another id makes another', { timeout: 60_000 }, async () => {
    const store = await recordedStore();
    const runs: Array<[string, ForkRequest]> = [];
    server = await startPlaybackServer({ store, sessionId: 'original', runFork: async (forkId, request) => void runs.push([forkId, request]) });

    const request = { requestId: 'click-1', checkpoint: 2, prompt: 'Go on, briefly.' };
    // Sent again while the first is being answered, and again after: a browser's retry of the same POST.
    const [first, concurrent] = await Promise.all([postFork(server.pageUrl, request), postFork(server.pageUrl, request)]);
    const after = await postFork(server.pageUrl, request);
    expect(first.status).toBe(200);
    expect(first.answer).toEqual({ sessionId: expect.any(String) as string, running: true });
    expect(concurrent).toEqual(first);
    expect(after).toEqual(first);
    expect((await readdir(dir!)).filter((name) => name.endsWith('.jsonl')).sort()).toEqual([`${first.answer.sessionId}.jsonl`, 'original.jsonl'].sort());
    expect(runs.map(([forkId]) => forkId)).toEqual([first.answer.sessionId]);

    const other = await postFork(server.pageUrl, { ...request, requestId: 'click-2' });
    expect(other.answer.sessionId).not.toBe(first.answer.sessionId);
    expect(runs.map(([forkId]) => forkId)).toEqual([first.answer.sessionId, other.answer.sessionId]);
  });
});

describe('the playback server at its seams', () => {
  it('answers a fork whose runFork never settles once runForkTimeoutMs passes, with the fork saved, instead of keeping the request open for ever', { timeout: 60_000 }, async () => {
    const store = await recordedStore();
    server = await startPlaybackServer({ store, sessionId: 'original', runFork: () => new Promise<void>(() => undefined), runForkTimeoutMs: 300 });
    const { status, answer } = await postFork(server.pageUrl, { requestId: 'click-1', checkpoint: 2, prompt: 'Go on, briefly.' });
    expect(status).toBe(200);
    expect(answer).toEqual({
      sessionId: expect.any(String) as string,
      running: false,
      problem: 'runFork did not say within 0.3 s whether the run started (runForkTimeoutMs): the fork is saved, and may still run on; open it to see',
    });
    expect((await readdir(dir!)).filter((name) => name.endsWith('.jsonl')).sort()).toEqual([`${answer.sessionId}.jsonl`, 'original.jsonl'].sort());
  });

  it('keeps no timer holding the process open while a runFork is undecided', { timeout: 60_000 }, async () => {
    const store = await recordedStore();
    let called!: () => void;
    const calledNow = new Promise<void>((resolve) => (called = resolve));
    server = await startPlaybackServer({
      store,
      sessionId: 'original',
      runFork: () => {
        called();
        return new Promise<void>(() => undefined);
      },
      runForkTimeoutMs: 600_000,
    });
    const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    const before = timers();
    const pending = postFork(server.pageUrl, { requestId: 'click-1', checkpoint: 2, prompt: 'Go on, briefly.' }).catch(() => undefined);
    await calledNow;
    expect(timers()).toBe(before);
    await server.close();
    server = undefined;
    await pending;
  });

  it('takes a runFork that returns no promise as one that started the run', { timeout: 60_000 }, async () => {
    const store = await recordedStore();
    const called: string[] = [];
    server = await startPlaybackServer({ store, sessionId: 'original', runFork: ((forkId: string) => void called.push(forkId)) as never });
    const { answer } = await postFork(server.pageUrl, { requestId: 'click-1', checkpoint: 2, prompt: 'Go on, briefly.' });
    expect(answer).toEqual({ sessionId: expect.any(String) as string, running: true });
    expect(called).toEqual([answer.sessionId]);
  });

  it('refuses a runForkTimeoutMs a timer cannot wait, naming the option', async () => {
    await expect(startPlaybackServer({ store: await recordedStore(), sessionId: 'original', runForkTimeoutMs: 0 })).rejects.toThrow(/runForkTimeoutMs: Too small/);
  });

  it('refuses a token of the right length in characters but not in bytes with a 403, not a 500', { timeout: 60_000 }, async () => {
    const store = await recordedStore();
    server = await startPlaybackServer({ store, sessionId: 'original' });
    const url = new URL(server.pageUrl);
    const token = url.searchParams.get('token')!;
    // As many characters as the token, more bytes: a length check on the text lets it through to a byte comparison.
    const response = await fetch(`${url.origin}/api/session?token=${encodeURIComponent(`é${token.slice(1)}`)}`);
    expect(response.status).toBe(403);
    expect(((await response.json()) as { error: string }).error).toMatch(/token/);
  });

  it('reads the session again for a point after the store failed once, instead of answering with that failure for good', { timeout: 60_000 }, async () => {
    const files = await recordedStore();
    let failures = 0;
    const store: SessionStore = {
      ...files,
      read: async (sessionId, ...rest) => {
        if (failures > 0) {
          failures--;
          throw new Error('the store went away for a moment');
        }
        return files.read(sessionId, ...rest);
      },
    };
    server = await startPlaybackServer({ store, sessionId: 'original' });
    const url = new URL(server.pageUrl);
    const point = async () => fetch(`${url.origin}/api/point${url.search}&frame=3`);

    failures = 1;
    const failed = await point();
    expect(failed.status).toBe(500);
    expect(((await failed.json()) as { error: string }).error).toBe('the store went away for a moment');

    const again = await point();
    expect(again.status).toBe(200);
    expect(((await again.json()) as { frame: number }).frame).toBe(3);
  });

  it('refuses a request id sent again with another request (409, naming it) instead of answering with the first fork', { timeout: 60_000 }, async () => {
    const store = await recordedStore();
    server = await startPlaybackServer({ store, sessionId: 'original' });

    const first = await postFork(server.pageUrl, { requestId: 'click-1', checkpoint: 2 });
    expect(first.status).toBe(200);
    const other = await postFork(server.pageUrl, { requestId: 'click-1', checkpoint: 3 });
    expect(other.status).toBe(409);
    expect(other.answer.error).toMatch(/requestId: "click-1" was sent before with another fork request/);
    // Nothing was forked for it: only the first fork is there.
    expect((await readdir(dir!)).filter((name) => name.endsWith('.jsonl')).sort()).toEqual([`${first.answer.sessionId}.jsonl`, 'original.jsonl'].sort());
    // The same request again is still the first one's answer.
    expect(await postFork(server.pageUrl, { requestId: 'click-1', checkpoint: 2 })).toEqual(first);
  });
});
