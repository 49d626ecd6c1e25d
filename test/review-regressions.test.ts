import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { tool } from 'ai';
import { waitFor } from 'xstate';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AgentBusyError, agentTool, createAgent, fileStore, type SessionStore } from '../src/index.js';
import { expectValidHistory, toolOutputs } from './support/history.js';
import { mockModel } from './support/mock-model.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'loopchart-review-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('regressions from the core review', () => {
  it('a tool whose run is aborted while its beforeToolCall hook is pending never runs', async () => {
    const log: string[] = [];
    const sideEffect = tool({ description: 'x', inputSchema: z.object({}), execute: async () => void log.push('executed') });
    const agent = createAgent({
      model: mockModel([{ toolCalls: [{ id: 'x', name: 'sideEffect', input: {} }] }]),
      tools: { sideEffect },
      hooks: {
        beforeToolCall: [
          () =>
            new Promise<undefined>((resolve) => {
              hookStarted();
              releaseHook = () => resolve(undefined);
            }),
        ],
      },
    });
    let hookStarted!: () => void;
    let releaseHook!: () => void;
    const started = new Promise<void>((resolve) => (hookStarted = resolve));
    const run = agent.run('go');
    await started;
    agent.abort('stop');
    const result = await run;
    // The hook answers only now, after the abort: the tool must still not run.
    releaseHook();
    await new Promise((resolve) => setImmediate(resolve));
    expect(result.outcome).toBe('aborted');
    expect(log).toEqual([]);
    await expectValidHistory(result.messages);
  });

  it('a session with a torn last line stays readable after the resumed agent appends to it', async () => {
    const store = fileStore(dir);
    await createAgent({ model: mockModel([{ text: ['one'] }]), store, sessionId: 's' }).run('first');
    await appendFile(path.join(dir, 's.jsonl'), '{"type":"message","ind');
    const second = await createAgent({ model: mockModel([{ text: ['two'] }]), store, sessionId: 's' }).run('second');
    const third = createAgent({ model: mockModel([{ text: ['three'] }]), store, sessionId: 's' });
    await third.ready();
    expect(third.messages).toEqual(second.messages);
    expect((await readFile(path.join(dir, 's.jsonl'), 'utf8')).endsWith('\n')).toBe(true);
  });

  it('one failed session write does not stop the later ones, and nothing is lost from the log', async () => {
    const inner = fileStore(dir);
    let failures = 0;
    const flaky: SessionStore = {
      read: (id) => inner.read(id),
      create: (header) => inner.create(header),
      append: async (id, records) => {
        if (records.some((record) => record.type === 'checkpoint' && record.id === 4) && failures++ === 0) throw new Error('EBUSY once');
        return inner.append(id, records);
      },
    };
    const agent = createAgent({ model: mockModel([{ text: ['a'] }, { text: ['b'] }, { text: ['c'] }]), store: flaky, sessionId: 'f' });
    const warnings: string[] = [];
    agent.events$.subscribe((event) => event.type === 'session-warning' && warnings.push(event.message));
    await agent.run('one');
    await agent.run('two');
    const last = await agent.run('three');
    expect(warnings).toEqual([expect.stringMatching(/EBUSY once/)]);
    const reopened = createAgent({ model: mockModel([]), store: inner, sessionId: 'f' });
    await reopened.ready();
    expect(reopened.messages).toEqual(last.messages);
    const written = (await readFile(path.join(dir, 'f.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; id?: number })
      .filter((record) => record.type === 'checkpoint')
      .map((record) => record.id);
    expect(agent.checkpoints().map((checkpoint) => checkpoint.id)).toEqual(written);
  });

  it('run() before the session is open, on a session in the middle of a run, is refused instead of hanging', async () => {
    const store = fileStore(dir);
    const first = createAgent({ model: mockModel([{ text: ['x'], holdBeforeFirst: true }]), store, sessionId: 'r' });
    void first.run('started');
    await first.ready();
    await waitFor(first.actor, (state) => state.matches({ running: { llm: 'calling' } }));
    // The calling checkpoint's write is queued on promise callbacks: let them run.
    await new Promise((resolve) => setImmediate(resolve));
    const second = createAgent({ model: mockModel([{ text: ['resumed'] }]), store, sessionId: 'r' });
    await expect(second.run('another')).rejects.toThrow(AgentBusyError);
    expect((await second.resume())?.text).toBe('resumed');
    first.abort();
  });

  it('calls made before the session is open keep their order: a follow-up before run, an abort after', async () => {
    const store = fileStore(dir);
    const model = mockModel([{ text: ['a'] }, { text: ['b'] }]);
    const agent = createAgent({ model, store, sessionId: 'o' });
    agent.followUp('and then?');
    const result = await agent.run('go');
    expect(result.messages.map((message) => (typeof message.content === 'string' ? message.content : 'parts'))).toEqual(['go', 'parts', 'and then?', 'parts']);

    const aborted = createAgent({ model: mockModel([{ text: ['never'], holdBeforeFirst: true }]), store, sessionId: 'p' });
    const run = aborted.run('go');
    aborted.abort('changed my mind');
    expect((await run).outcome).toBe('aborted');
  });

  it('abort during transformPrompt ends the run aborted', async () => {
    let transforming!: () => void;
    const started = new Promise<void>((resolve) => (transforming = resolve));
    const agent = createAgent({
      model: mockModel([{ text: ['never'] }]),
      transformPrompt: (messages, options) =>
        new Promise((_resolve, reject) => {
          transforming();
          options?.signal?.addEventListener('abort', () => reject(new Error(String(options.signal?.reason))));
        }),
    });
    const run = agent.run('go');
    await started;
    agent.abort('user stop');
    expect((await run).outcome).toBe('aborted');
  });

  it('two parallel calls to a tool wrapping one existing agent run one after the other', async () => {
    const helper = createAgent({ model: mockModel([{ text: ['first answer'] }, { text: ['second answer'] }]) });
    const ask = agentTool(helper, { description: 'asks the helper' });
    const parent = createAgent({
      model: mockModel([{ toolCalls: [{ id: 'a', name: 'ask', input: { task: 'one' } }, { id: 'b', name: 'ask', input: { task: 'two' } }] }, { text: ['done'] }]),
      tools: { ask },
    });
    const result = await parent.run('go');
    expect(toolOutputs(result.messages)).toEqual({
      a: { type: 'json', value: { outcome: 'completed', text: 'first answer' } },
      b: { type: 'json', value: { outcome: 'completed', text: 'second answer' } },
    });
  });

  it('an empty prompt rejects run() instead of throwing', async () => {
    const agent = createAgent({ model: mockModel([]) });
    const attempt = agent.run('');
    expect(attempt).toBeInstanceOf(Promise);
    await expect(attempt).rejects.toThrow('The prompt is empty.');
  });
});
