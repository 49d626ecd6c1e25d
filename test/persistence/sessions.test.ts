import { readFileSync } from 'node:fs';
import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgent, fileStore, forkSession, SessionFormatError, type AgentEvent } from '../../src/index.js';
import { expectValidHistory } from '../support/history.js';
import { mockModel } from '../support/mock-model.js';
import { recordEvents } from '../support/record.js';
import { addTool } from '../support/tools.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'loopchart-sessions-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const addTurn = (a: number, b: number, id: string) => ({ toolCalls: [{ id, name: 'add', input: { a, b } }] });

describe('sessions in a file store', () => {
  it('a new id starts a session; the same id in a new agent resumes its history and continues it', async () => {
    const store = fileStore(dir);
    const first = createAgent({ model: mockModel([addTurn(1, 2, 'c1'), { text: ['3'] }]), tools: { add: addTool }, store, sessionId: 'chat' });
    expect(first.sessionId).toBe('chat');
    const one = await first.run('1+2?');
    expect(one.outcome).toBe('completed');

    const model = mockModel([{ text: ['you asked 1+2'] }]);
    const second = createAgent({ model, tools: { add: addTool }, store, sessionId: 'chat' });
    expect(await second.resume()).toBeUndefined();
    expect(second.messages).toEqual(one.messages);
    const two = await second.run('what did I ask?');
    expect(two.messages.slice(0, one.messages.length)).toEqual(one.messages);
    expect(model.doStreamCalls[0]!.prompt.filter((message) => message.role !== 'system')).toHaveLength(one.messages.length + 1);
    await expectValidHistory(two.messages);
  });

  it('lists its checkpoints: each step boundary with state, step, outcome and message count', async () => {
    const agent = createAgent({ model: mockModel([addTurn(1, 1, 'c1'), { text: ['2'] }]), tools: { add: addTool }, store: fileStore(dir) });
    await agent.run('go');
    expect(agent.checkpoints().map(({ id, state, step, outcome, messageCount }) => ({ id, state, step, outcome, messageCount }))).toEqual([
      { id: 1, state: 'running.llm.calling', step: 1, outcome: undefined, messageCount: 1 },
      { id: 2, state: 'running.llm.calling', step: 2, outcome: undefined, messageCount: 3 },
      { id: 3, state: 'idle', step: 0, outcome: 'completed', messageCount: 4 },
    ]);
  });

  it('reports a step boundary only once it is written', async () => {
    const file = path.join(dir, 'order.jsonl');
    const agent = createAgent({ model: mockModel([addTurn(1, 1, 'c1'), { text: ['2'] }]), tools: { add: addTool }, store: fileStore(dir), sessionId: 'order' });
    const seen: number[] = [];
    agent.events$.subscribe((event) => {
      if (event.type === 'step-end' || event.type === 'run-end') {
        seen.push(readFileSync(file, 'utf8').split('\n').filter((line) => line.includes('"checkpoint"')).length);
      }
    });
    await agent.run('go');
    expect(seen).toEqual([2, 3, 3]);
  });

  it('costs the same to append at 10 and at 400 messages: nothing before the new lines is rewritten', async () => {
    const history = Array.from({ length: 400 }, (_, i) => ({ role: i % 2 ? ('assistant' as const) : ('user' as const), content: `message ${i} ${'x'.repeat(200)}` }));
    const sizes: number[] = [];
    for (const [id, messages] of [['short', history.slice(0, 10)], ['long', history]] as const) {
      const agent = createAgent({ model: mockModel([{ text: ['ok'] }]), messages: [...messages], store: fileStore(dir), sessionId: id });
      await agent.ready();
      const before = (await readFile(path.join(dir, `${id}.jsonl`), 'utf8')).length;
      await agent.run('go');
      const after = (await readFile(path.join(dir, `${id}.jsonl`), 'utf8')).length;
      sizes.push(after - before);
    }
    // the first run also writes the initial history; compare what the run itself added beyond it
    const initial = [10, 400].map((count) => history.slice(0, count).reduce((sum, message, index) => sum + JSON.stringify({ type: 'message', index, message }).length + 1, 0));
    const perRun = sizes.map((size, i) => size - initial[i]!);
    expect(Math.abs(perRun[1]! - perRun[0]!)).toBeLessThan(200);
  });

  it('skips a torn last line with a session-warning event and resumes from the last whole checkpoint', async () => {
    const store = fileStore(dir);
    const agent = createAgent({ model: mockModel([{ text: ['first'] }]), store, sessionId: 'torn' });
    const first = await agent.run('one');
    await appendFile(path.join(dir, 'torn.jsonl'), '{"type":"message","index":2,"mess');
    const resumed = createAgent({ model: mockModel([{ text: ['second'] }]), store, sessionId: 'torn' });
    const events = recordEvents(resumed);
    await resumed.ready();
    expect(events.filter((event): event is Extract<AgentEvent, { type: 'session-warning' }> => event.type === 'session-warning')).toEqual([
      { type: 'session-warning', sessionId: 'torn', message: expect.stringMatching(/torn last line/) },
    ]);
    expect(resumed.messages).toEqual(first.messages);
    expect((await resumed.run('two')).outcome).toBe('completed');
  });

  it('a session written by another format version is a clear error, not a guess', async () => {
    await writeFile(path.join(dir, 'old.jsonl'), '{"type":"header","format":"loopchart-session","version":0,"sessionId":"old","createdAt":"x"}\n');
    const agent = createAgent({ model: mockModel([]), store: fileStore(dir), sessionId: 'old' });
    await expect(agent.ready()).rejects.toThrow(SessionFormatError);
    await expect(agent.run('hi')).rejects.toThrow(/format version 0 is not supported/);
  });

  it('a sessionId without a store is an option error', () => {
    expect(() => createAgent({ model: mockModel([]), sessionId: 'x' })).toThrow(/sessionId: sessionId needs a store/);
  });
});

describe('forks', () => {
  it('fork at step 2 of a 5-step session: both continue independently and the original is untouched', async () => {
    const store = fileStore(dir);
    const fiveSteps = [addTurn(1, 1, 'a'), addTurn(2, 2, 'b'), addTurn(3, 3, 'c'), addTurn(4, 4, 'd'), { text: ['original end'] }];
    const original = createAgent({ model: mockModel(fiveSteps), tools: { add: addTool }, store, sessionId: 'original' });
    const done = await original.run('add things');
    expect(done.steps).toBe(5);
    const bytes = await readFile(path.join(dir, 'original.jsonl'), 'utf8');

    const stepTwo = original.checkpoints().find((checkpoint) => checkpoint.step === 2 && checkpoint.state === 'running.llm.calling')!;
    const forkId = await forkSession({ store, from: 'original', at: stepTwo.id, sessionId: 'fork' });
    expect(forkId).toBe('fork');

    const forkModel = mockModel([{ text: ['fork went another way'] }]);
    const fork = createAgent({ model: forkModel, tools: { add: addTool }, store, sessionId: 'fork' });
    const forked = await fork.resume();
    expect(forked?.outcome).toBe('completed');
    expect(forked?.text).toBe('fork went another way');
    expect(forked?.messages).toEqual([...done.messages.slice(0, stepTwo.messageCount), { role: 'assistant', content: [{ type: 'text', text: 'fork went another way' }] }]);
    await expectValidHistory(forked!.messages);

    expect(await readFile(path.join(dir, 'original.jsonl'), 'utf8')).toBe(bytes);
    const again = createAgent({ model: mockModel([{ text: ['original goes on'] }]), tools: { add: addTool }, store, sessionId: 'original' });
    const next = await again.run('and then?');
    expect(next.messages.slice(0, done.messages.length)).toEqual(done.messages);
    const forkAgain = createAgent({ model: mockModel([{ text: ['fork goes on'] }]), tools: { add: addTool }, store, sessionId: 'fork' });
    const forkNext = await forkAgain.run('and then?');
    expect(forkNext.messages.slice(0, forked!.messages.length)).toEqual(forked!.messages);
  });
});
