import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgent } from '../../src/agent.js';
import { scriptedModel } from '../../src/test/index.js';
import { fileStore } from '../../src/persistence/file-store.js';
import { contextAt } from '../../src/time-travel/context-at.js';
import { openSessionRecord } from '../../src/time-travel/session-record.js';

/** A session written by loopchart before it kept timelines (format version 1): retry, compaction, approval. */
const OLD_SESSION = 'test/fixtures/session-format-1.jsonl';

describe('a session written in format version 1', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  function storeWithOldSession() {
    const dir = mkdtempSync(path.join(tmpdir(), 'loopchart-old-session-'));
    dirs.push(dir);
    copyFileSync(OLD_SESSION, path.join(dir, 'old-format.jsonl'));
    return { store: fileStore(dir), file: path.join(dir, 'old-format.jsonl') };
  }

  it('opens with one point per checkpoint and a warning that no timeline was recorded', async () => {
    const { store } = storeWithOldSession();
    const view = await openSessionRecord(store, 'old-format');
    expect(view?.header.version).toBe(1);
    expect(view?.runs).toHaveLength(1);
    const [run] = view!.runs;
    expect(run!.timeline.map((point) => point.to)).toEqual(view!.checkpoints.map((checkpoint) => checkpoint.state));
    expect(run!.timeline.every((point) => point.checkpointId !== undefined)).toBe(true);
    expect(run!.ended).toBe(true);
    expect(run!.trace.outcome).toBe('completed');
    expect(run!.modelCalls).toEqual([]);
    expect(view!.warnings).toEqual([expect.stringMatching(new RegExp(`no timeline recorded for run ${run!.runId} \\(the session was written before loopchart kept timelines\\)`))]);
  });

  it('gives the context at each point, the compaction summary in place of what it summarised', async () => {
    const { store } = storeWithOldSession();
    const log = (await store.read('old-format'))!;
    const view = (await openSessionRecord(store, 'old-format'))!;
    const first = contextAt(log, view, 0, 0);
    expect(first).toHaveLength(7);
    const afterCompaction = view.runs[0]!.timeline.findIndex((point) => point.checkpointId === 4);
    const compacted = contextAt(log, view, 0, afterCompaction);
    expect(JSON.stringify(compacted[0])).toContain('Summary of the earlier conversation');
    expect(compacted.length).toBeLessThan(first.length);
  });

  it('continued by this loopchart, stays a version-1 session that an older loopchart can read: no run records join it', async () => {
    const { store, file } = storeWithOldSession();
    const agent = createAgent({ model: scriptedModel([{ text: 'Still here.' }]), store, sessionId: 'old-format' });
    expect((await agent.run('Are you there?')).outcome).toBe('completed');
    await agent.dispose();
    const types = readFileSync(file, 'utf8').trim().split('\n').map((line) => (JSON.parse(line) as { type: string }).type);
    expect(new Set(types)).toEqual(new Set(['header', 'message', 'history', 'checkpoint']));
    const view = await openSessionRecord(store, 'old-format');
    expect(view?.runs).toHaveLength(2);
  });

  it('is left byte-identical by opening it', async () => {
    const { store, file } = storeWithOldSession();
    const before = readFileSync(file);
    await openSessionRecord(store, 'old-format');
    expect(readFileSync(file).equals(before)).toBe(true);
  });
});
