import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { appendFile, readFile, stat, writeFile } from 'node:fs/promises';
import { Output, tool, type ModelMessage } from 'ai';
import { z } from 'zod';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { AgentBusyError, createAgent, fileStore, forkSession, openSessionRecord, SessionFormatError, type AgentEvent, type SessionStore } from '../../src/index.js';
import { expectValidHistory } from '../support/history.js';
import { mockModel } from '../support/mock-model.js';
import { nextEvent } from '../support/next-event.js';
import { recordEvents } from '../support/record.js';
import { addTool } from '../support/tools.js';
import { waitFor } from 'xstate';
import { useTempDir } from '../support/temp-dir.js';

const dir = useTempDir('loopchart-sessions-');

const addTurn = (a: number, b: number, id: string) => ({ toolCalls: [{ id, name: 'add', input: { a, b } }] });

/** An agent of session `sessionId` whose run waits in `calling` for a model that never answers, its checkpoint written. */
async function runHeldAtCalling(store: SessionStore, sessionId: string) {
  const agent = createAgent({ model: mockModel([{ text: ['x'], holdBeforeFirst: true }]), store, sessionId });
  void agent.run('started');
  await agent.ready();
  await waitFor(agent.actor, (state) => state.matches({ running: { llm: 'calling' } }));
  // The calling checkpoint's write is queued on promise callbacks: let them run.
  await new Promise((resolve) => setImmediate(resolve));
  return agent;
}

describe('sessions in a file store', () => {
  it('a new id starts a session; the same id in a new agent resumes its history and continues it', async () => {
    const store = fileStore(dir());
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
    const agent = createAgent({ model: mockModel([addTurn(1, 1, 'c1'), { text: ['2'] }]), tools: { add: addTool }, store: fileStore(dir()) });
    await agent.run('go');
    expect(agent.checkpoints().map(({ id, state, step, outcome, messageCount }) => ({ id, state, step, outcome, messageCount }))).toEqual([
      { id: 1, state: 'running.llm.calling', step: 1, outcome: undefined, messageCount: 1 },
      { id: 2, state: 'running.llm.calling', step: 2, outcome: undefined, messageCount: 3 },
      { id: 3, state: 'idle', step: 0, outcome: 'completed', messageCount: 4 },
    ]);
  });

  it('reports a step boundary only once it is written', async () => {
    const file = path.join(dir(), 'order.jsonl');
    const agent = createAgent({ model: mockModel([addTurn(1, 1, 'c1'), { text: ['2'] }]), tools: { add: addTool }, store: fileStore(dir()), sessionId: 'order' });
    const seen: number[] = [];
    agent.events$.subscribe((event) => {
      if (event.type === 'finish-step' || event.type === 'run-end') {
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
      const agent = createAgent({ model: mockModel([{ text: ['ok'] }]), messages: [...messages], store: fileStore(dir()), sessionId: id });
      await agent.ready();
      const before = (await readFile(path.join(dir(), `${id}.jsonl`), 'utf8')).length;
      await agent.run('go');
      const after = (await readFile(path.join(dir(), `${id}.jsonl`), 'utf8')).length;
      sizes.push(after - before);
    }
    // the first run also writes the initial history; compare what the run itself added beyond it
    const initial = [10, 400].map((count) => history.slice(0, count).reduce((sum, message, index) => sum + JSON.stringify({ type: 'message', index, message }).length + 1, 0));
    const perRun = sizes.map((size, i) => size - initial[i]!);
    expect(Math.abs(perRun[1]! - perRun[0]!)).toBeLessThan(200);
  });

  it('skips a torn last line with a session-warning event and resumes from the last whole checkpoint', async () => {
    const store = fileStore(dir());
    const agent = createAgent({ model: mockModel([{ text: ['first'] }]), store, sessionId: 'torn' });
    const first = await agent.run('one');
    await appendFile(path.join(dir(), 'torn.jsonl'), '{"type":"message","index":2,"mess');
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
    await writeFile(path.join(dir(), 'old.jsonl'), '{"type":"header","format":"loopchart-session","version":0,"sessionId":"old","createdAt":"x"}\n');
    const agent = createAgent({ model: mockModel([]), store: fileStore(dir()), sessionId: 'old' });
    await expect(agent.ready()).rejects.toThrow(SessionFormatError);
    await expect(agent.run('hi')).rejects.toThrow(/format version 0 is not supported/);
  });

  it.each([
    ['a state the chart does not have', { value: { running: 'nowhere' } }, /checkpoint 3's snapshot cannot be restored: its state \{"running":"nowhere"\} is not one this loopchart's chart has/],
    ['a child the chart does not invoke', { children: { ghost: { src: 'ghost', snapshot: { status: 'active' } } } }, /checkpoint 3's snapshot cannot be restored: its child "ghost" runs "ghost", which this loopchart's chart does not invoke/],
  ])('a checkpoint whose snapshot names %s is refused as the session opens, and the history is not lost', async (_name, change, message) => {
    const store = fileStore(dir());
    const first = createAgent({ model: mockModel([{ text: ['first'] }]), store, sessionId: 'foreign' });
    const done = await first.run('one');
    await first.dispose();
    const file = path.join(dir(), 'foreign.jsonl');
    const lines = (await readFile(file, 'utf8')).trim().split('\n');
    const last = JSON.parse(lines.at(-1)!) as { id: number; snapshot: Record<string, unknown> };
    await appendFile(file, `${JSON.stringify({ ...last, id: last.id + 1, snapshot: { ...last.snapshot, ...change } })}\n`);
    const before = await readFile(file, 'utf8');

    const resumed = createAgent({ model: mockModel([{ text: ['second'] }]), store, sessionId: 'foreign' });
    await expect(resumed.ready()).rejects.toThrow(SessionFormatError);
    await expect(resumed.run('two')).rejects.toThrow(message);
    await expect(resumed.run('two')).rejects.toThrow(/^session foreign: checkpoint 3's snapshot cannot be restored: .*: the session was written by another version of loopchart, or changed by hand$/);
    await resumed.dispose();
    expect(await readFile(file, 'utf8')).toBe(before);
    expect(done.messages).toHaveLength(2);
  });

  /** A session `sessionId` whose run waits for approval of an `add` call, left by an agent that was disposed: its store, its file and its last checkpoint. */
  async function sessionWaitingForApproval(sessionId: string) {
    const store = fileStore(dir());
    const first = createAgent({ model: mockModel([addTurn(1, 2, 'c1')]), tools: { add: addTool }, approval: { ask: ['add'] }, store, sessionId });
    const asked = nextEvent(first, 'approval-request');
    const waiting = first.run('add 1 and 2');
    await asked;
    await vi.waitFor(() => expect(first.pendingApprovals).toHaveLength(1), { timeout: 30_000 });
    await first.dispose();
    await expect(waiting).rejects.toThrow();
    const file = path.join(dir(), `${sessionId}.jsonl`);
    const lines = (await readFile(file, 'utf8')).trim().split('\n');
    const last = JSON.parse(lines.at(-1)!) as { id: number; state: string; snapshot: { context: Record<string, unknown> } };
    expect(last.state).toBe('running.awaitingApproval');
    return { store, file, last };
  }

  it.each([
    ['a run that is not an object', (context: Record<string, unknown>) => ({ ...context, run: 42 }), 'context.run: Invalid input: expected object, received number (it is 42)'],
    ['a counter of the wrong type', (context: Record<string, unknown>) => ({ ...context, run: { ...(context.run as object), steps: 'one' } }), 'context.run.steps: Invalid input: expected number, received string (it is "one")'],
    ['calls that are not an array', (context: Record<string, unknown>) => ({ ...context, run: { ...(context.run as object), calls: 'x'.repeat(500) } }), `context.run.calls: Invalid input: expected array, received string (it is "${'x'.repeat(59)})`],
    ['no queues', ({ queues: _queues, ...context }: Record<string, unknown>) => context, 'context.queues: Invalid input: expected object, received undefined'],
    ['no run, though its state is within one', ({ run: _run, ...context }: Record<string, unknown>) => context, 'context.run: Invalid input: expected object, received undefined'],
  ])('a checkpoint whose context has %s is refused as the session opens, naming the field, and the session is left as it was', async (_name, change, problem) => {
    const { store, file, last } = await sessionWaitingForApproval('shape');
    await appendFile(file, `${JSON.stringify({ ...last, id: last.id + 1, snapshot: { ...last.snapshot, context: change(last.snapshot.context) } })}\n`);
    const before = await readFile(file, 'utf8');

    const resumed = createAgent({ model: mockModel([{ text: ['3'] }]), tools: { add: addTool }, approval: { ask: ['add'] }, store, sessionId: 'shape' });
    await expect(resumed.ready()).rejects.toThrow(SessionFormatError);
    await expect(resumed.resume()).rejects.toThrow(
      `session shape: checkpoint ${last.id + 1}'s snapshot cannot be restored: its context does not have the shape this loopchart's chart reads: ${problem}: the session was written by another version of loopchart, or changed by hand`,
    );
    await resumed.dispose();
    expect(await readFile(file, 'utf8')).toBe(before);
  });

  it('a checkpoint recorded in another state than its snapshot is in is refused as the session opens, and the session is left as it was', async () => {
    const { store, file, last } = await sessionWaitingForApproval('relabelled');
    await appendFile(file, `${JSON.stringify({ ...last, id: last.id + 1, state: 'idle' })}\n`);
    const before = await readFile(file, 'utf8');

    const resumed = createAgent({ model: mockModel([{ text: ['3'] }]), tools: { add: addTool }, approval: { ask: ['add'] }, store, sessionId: 'relabelled' });
    await expect(resumed.ready()).rejects.toThrow(
      new SessionFormatError(
        `session relabelled: checkpoint ${last.id + 1}'s snapshot cannot be restored: the checkpoint is recorded in state "idle", but its snapshot is in running.awaitingApproval: the session was written by another version of loopchart, or changed by hand`,
      ),
    );
    await resumed.dispose();
    expect(await readFile(file, 'utf8')).toBe(before);
  });

  it('a session whose records were written twice over is refused by name as it opens', async () => {
    const store = fileStore(dir());
    const first = createAgent({ model: mockModel([{ text: ['first'] }]), store, sessionId: 'doubled' });
    await first.run('one');
    await first.dispose();
    const file = path.join(dir(), 'doubled.jsonl');
    const [header, ...records] = (await readFile(file, 'utf8')).trim().split('\n');
    await writeFile(file, `${[header, ...records, ...records].join('\n')}\n`);
    const resumed = createAgent({ model: mockModel([]), store, sessionId: 'doubled' });
    await expect(resumed.ready()).rejects.toThrow(new SessionFormatError('session doubled: checkpoint 1 comes after checkpoint 2: checkpoint ids grow (records duplicated or out of order)'));
    await resumed.dispose();
  });

  it('a session file renamed or copied to another id is read under its new id, with a warning that its header names the old one', async () => {
    const store = fileStore(dir());
    const first = createAgent({ model: mockModel([{ text: ['first'] }]), store, sessionId: 'original-name' });
    await first.run('one');
    await first.dispose();
    await writeFile(path.join(dir(), 'new-name.jsonl'), await readFile(path.join(dir(), 'original-name.jsonl')));
    const warning = `${path.join(dir(), 'new-name.jsonl')}: its header names session "original-name", not "new-name": the file was renamed or copied; it is read as session new-name`;
    expect((await store.read('new-name'))?.warnings).toEqual([warning]);
    const view = await openSessionRecord(store, 'new-name');
    expect(view?.sessionId).toBe('new-name');
    expect(view?.warnings).toContain(warning);
  });

  it('a sessionId without a store is an option error', () => {
    expect(() => createAgent({ model: mockModel([]), sessionId: 'x' })).toThrow(/sessionId: sessionId needs a store/);
  });
});

describe('forks', () => {
  /** A session `src` of two runs (checkpoints 1 to 4) in `dir`, and the files the directory holds. */
  async function twoRunSession() {
    const store = fileStore(dir());
    const agent = createAgent({ model: mockModel([{ text: ['one'] }, { text: ['two'] }]), store, sessionId: 'src' });
    await agent.run('1');
    await agent.run('2');
    await agent.dispose();
    expect(agent.checkpoints().map((checkpoint) => checkpoint.id)).toEqual([1, 2, 3, 4]);
    return { store, files: () => readdirSync(dir()).filter((name) => name.endsWith('.jsonl')).sort() };
  }

  it('refuses a checkpoint id that is no whole number of 1 or more, naming it, and writes nothing', async () => {
    const { store, files } = await twoRunSession();
    const before = files();
    for (const at of ['2', undefined, Number.NaN, 1.5, -1, 0, Number.POSITIVE_INFINITY]) {
      await expect(forkSession({ store, from: 'src', at: at as number })).rejects.toThrow(
        `forkSession: at must be a checkpoint id, a whole number 1 or more (agent.checkpoints() lists a session's), not ${typeof at === 'string' ? '"2" (a string)' : String(at)}`,
      );
    }
    await expect(forkSession({ store, from: 'src', at: 9 })).rejects.toThrow('session src: no checkpoint 9');
    expect(files()).toEqual(before);
  });

  it('refuses to fork into a session id that exists, saying so, and leaves that session as it was', async () => {
    const { store } = await twoRunSession();
    const bytes = await readFile(path.join(dir(), 'src.jsonl'), 'utf8');
    await expect(forkSession({ store, from: 'src', at: 2, sessionId: 'src' })).rejects.toThrow(`session src exists already (${path.join(dir(), 'src.jsonl')})`);
    expect(await readFile(path.join(dir(), 'src.jsonl'), 'utf8')).toBe(bytes);
  });

  it('a fork whose records could not be written is refused at open, and forkSession again with its id finishes it', async () => {
    const { store } = await twoRunSession();
    // The store goes away between the fork's header and its records (a dropped connection).
    let failAppend = true;
    const flaky: SessionStore = Object.assign(Object.create(store) as SessionStore, {
      append: (...args: Parameters<SessionStore['append']>) => (failAppend ? Promise.reject(new Error('connection lost')) : store.append(...args)),
    });
    await expect(forkSession({ store: flaky, from: 'src', at: 2, sessionId: 'half' })).rejects.toThrow(
      /forkSession: session half was created but its records could not be written \(connection lost\): call forkSession again with sessionId "half" to finish it/,
    );
    const opened = createAgent({ model: mockModel([{ text: ['never'] }]), store, sessionId: 'half' });
    await expect(opened.run('go on')).rejects.toThrow(/session half is a fork of session src at checkpoint 2 whose records were never written/);
    await opened.dispose();

    failAppend = false;
    await expect(forkSession({ store: flaky, from: 'src', at: 2, sessionId: 'half' })).resolves.toBe('half');
    // Finished, it is a fork like any other: it has the source's history up to checkpoint 2.
    const fork = createAgent({ model: mockModel([{ text: ['and on'] }]), store, sessionId: 'half' });
    const result = await fork.run('go on');
    expect(result.messages.map((message) => message.content)).toEqual(['1', [{ type: 'text', text: 'one' }], 'go on', [{ type: 'text', text: 'and on' }]]);
    await fork.dispose();
    // A finished fork is an existing session: forking into it again is refused.
    await expect(forkSession({ store, from: 'src', at: 2, sessionId: 'half' })).rejects.toThrow(/session half exists already/);
  });

  it('refuses messages that are no model messages before writing anything: the fork would be a session nothing can open', async () => {
    const { store, files } = await twoRunSession();
    const before = files();
    await expect(forkSession({ store, from: 'src', at: 2, messages: 'Use the metric system.' as never })).rejects.toThrow(
      'forkSession: messages must be a list of model messages',
    );
    await expect(forkSession({ store, from: 'src', at: 2, messages: [{ role: 'user', content: 'fine' }, { role: 'usr', content: 5 }] as never })).rejects.toThrow(
      /forkSession: messages\.1: expected a model message/,
    );
    expect(files()).toEqual(before);
  });

  it('fork at step 2 of a 5-step session: both continue independently and the original is untouched', async () => {
    const store = fileStore(dir());
    const fiveSteps = [addTurn(1, 1, 'a'), addTurn(2, 2, 'b'), addTurn(3, 3, 'c'), addTurn(4, 4, 'd'), { text: ['original end'] }];
    const original = createAgent({ model: mockModel(fiveSteps), tools: { add: addTool }, store, sessionId: 'original' });
    const done = await original.run('add things');
    expect(done.stepCount).toBe(5);
    const bytes = await readFile(path.join(dir(), 'original.jsonl'), 'utf8');

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

    expect(await readFile(path.join(dir(), 'original.jsonl'), 'utf8')).toBe(bytes);
    const again = createAgent({ model: mockModel([{ text: ['original goes on'] }]), tools: { add: addTool }, store, sessionId: 'original' });
    const next = await again.run('and then?');
    expect(next.messages.slice(0, done.messages.length)).toEqual(done.messages);
    const forkAgain = createAgent({ model: mockModel([{ text: ['fork goes on'] }]), tools: { add: addTool }, store, sessionId: 'fork' });
    const forkNext = await forkAgain.run('and then?');
    expect(forkNext.messages.slice(0, forked!.messages.length)).toEqual(forked!.messages);
  });

  it('a fork of a checkpoint this loopchart cannot restore is refused by name, and no session is made', async () => {
    const store = fileStore(dir());
    await createAgent({ model: mockModel([{ text: ['first'] }]), store, sessionId: 'source' }).run('one');
    const file = path.join(dir(), 'source.jsonl');
    const lines = (await readFile(file, 'utf8')).trim().split('\n');
    const last = JSON.parse(lines.at(-1)!) as { id: number; snapshot: { context: Record<string, unknown> } };
    await appendFile(file, `${JSON.stringify({ ...last, id: last.id + 1, snapshot: { ...last.snapshot, context: { ...last.snapshot.context, prunedToolCallIds: 'all' } } })}\n`);

    await expect(forkSession({ store, from: 'source', at: last.id + 1, sessionId: 'unopenable' })).rejects.toThrow(
      new SessionFormatError(
        `session source: checkpoint ${last.id + 1}'s snapshot cannot be restored: its context does not have the shape this loopchart's chart reads: context.prunedToolCallIds: Invalid input: expected array, received string (it is "all"): the session was written by another version of loopchart, or changed by hand`,
      ),
    );
    expect(readdirSync(dir())).toEqual(['source.jsonl']);
    await expect(forkSession({ store, from: 'source', at: last.id, sessionId: 'fine' })).resolves.toBe('fine');
  });
});

describe('one writer per session, loud failures, private files', () => {
  it('two agents on one session: the second writer is refused with a clear error, the first keeps working, and a fresh reader sees a coherent history', async () => {
    const store = fileStore(dir());
    await createAgent({ model: mockModel([{ text: ['hello'] }]), store, sessionId: 's' }).run('start');
    const a = createAgent({ model: mockModel([{ text: ['answer A'] }, { text: ['answer A2'] }]), store, sessionId: 's' });
    const b = createAgent({ model: mockModel([{ text: ['answer B'] }]), store, sessionId: 's' });
    await Promise.all([a.ready(), b.ready()]);

    const resultA = await a.run('question A');
    const resultB = await b.run('question B');
    const resultA2 = await a.run('question A2');

    expect(resultA.outcome).toBe('completed');
    expect(resultB.outcome).toBe('failed');
    expect(resultB.error).toMatchObject({ kind: 'session-write', message: expect.stringContaining('another writer') });
    expect(resultA2.outcome).toBe('completed');
    const fresh = createAgent({ model: mockModel([]), store, sessionId: 's' });
    await fresh.ready();
    const texts = JSON.stringify(fresh.messages);
    expect(texts).toContain('question A2');
    expect(texts).not.toContain('question B');
    expect(fresh.messages).toEqual(resultA2.messages);
  });

  it('the same rule holds across store instances (as for two processes): a stale writer’s append is refused and writes nothing', async () => {
    const first = fileStore(dir());
    const second = fileStore(dir());
    await createAgent({ model: mockModel([{ text: ['hi'] }]), store: first, sessionId: 'p' }).run('start');
    const seenByOne = (await first.read('p'))!.version!;
    const seenByOther = (await second.read('p'))!.version!;
    const checkpoint = { type: 'checkpoint' as const, id: 99, at: '', state: 'idle', step: 0, messageCount: 2, snapshot: {} };
    await first.append('p', [checkpoint], { after: seenByOne });
    const sizeBefore = (await readFile(path.join(dir(), 'p.jsonl'))).length;
    await expect(second.append('p', [checkpoint], { after: seenByOther })).rejects.toThrow(/another writer/);
    expect((await readFile(path.join(dir(), 'p.jsonl'))).length).toBe(sizeBefore);
  });

  it('a complete last record without its newline is kept by the reader and by the next append alike', async () => {
    const store = fileStore(dir());
    const agent = createAgent({ model: mockModel([addTurn(1, 2, 'c1'), { text: ['3'] }]), tools: { add: addTool }, store, sessionId: 't' });
    await agent.run('1+2?');
    const file = path.join(dir(), 't.jsonl');
    const text = await readFile(file, 'utf8');
    await writeFile(file, text.slice(0, -1)); // the last newline lost in a crash
    const lastId = agent.checkpoints().at(-1)!.id;

    const resumed = createAgent({ model: mockModel([{ text: ['again'] }]), tools: { add: addTool }, store, sessionId: 't' });
    await resumed.ready();
    expect(resumed.checkpoints().at(-1)!.id).toBe(lastId);
    await resumed.run('more');

    const fresh = createAgent({ model: mockModel([]), store, sessionId: 't' });
    await fresh.ready();
    expect(fresh.checkpoints().map((checkpoint) => checkpoint.id)).toEqual(resumed.checkpoints().map((checkpoint) => checkpoint.id));
    await expect(forkSession({ store, from: 't', at: lastId })).resolves.toEqual(expect.any(String));
  });

  it("session files are private (0600, directory 0700) and keep none of the agent's secrets", async () => {
    const key = 'sk-test-SECRETSECRETSECRET123';
    const sessions = path.join(dir(), 'private');
    const store = fileStore(sessions);
    await createAgent({ model: mockModel([{ text: [`the key is ${key}`] }]), store, sessionId: 'k', secrets: [key] }).run(`remember ${key}`);
    const file = path.join(sessions, 'k.jsonl');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(sessions)).mode & 0o777).toBe(0o700);
    expect(await readFile(file, 'utf8')).not.toContain(key);
  });

  it('a disk that fills up mid-run ends the run failed (session-write), loudly, and a resume does not run a durable tool again', async () => {
    const inner = fileStore(dir());
    let full = false;
    const store: SessionStore = {
      read: (id) => inner.read(id),
      create: (header) => inner.create(header),
      append: (id, records, options) => (full ? Promise.reject(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })) : inner.append(id, records, options)),
    };
    const log: string[] = [];
    const counted = tool({ description: 'counts', inputSchema: z.object({ n: z.number() }), execute: async ({ n }) => void log.push(`T${n}`) });
    const model = mockModel([
      { toolCalls: [{ id: 't1', name: 'counted', input: { n: 1 } }] },
      { toolCalls: [{ id: 't2', name: 'counted', input: { n: 2 } }] },
      { toolCalls: [{ id: 't3', name: 'counted', input: { n: 3 } }] },
      { text: ['done'] },
    ]);
    const agent = createAgent({ model, tools: { counted }, store, sessionId: 'full' });
    const events = recordEvents(agent);
    const sub = agent.events$.subscribe((event) => {
      if (event.type === 'tool-result' && event.toolCallId === 't1') full = true;
    });

    const result = await agent.run('go');
    sub.unsubscribe();

    expect(result.outcome).toBe('failed');
    expect(result.error).toMatchObject({ kind: 'session-write', message: expect.stringContaining('ENOSPC') });
    expect(events.some((event) => event.type === 'session-warning')).toBe(true);
    expect(log).not.toContain('T3');

    full = false;
    const resumed = createAgent({ model: mockModel([{ text: ['done'] }, { text: ['done'] }, { text: ['done'] }]), tools: { counted }, store: inner, sessionId: 'full' });
    await resumed.resume();
    expect(log.filter((entry) => entry === 'T1')).toHaveLength(1);
  });

  it('a session file deleted mid-run is not recreated without its header: the run ends failed and the directory holds no headless file', async () => {
    const store = fileStore(dir());
    const file = path.join(dir(), 'gone.jsonl');
    const model = mockModel([addTurn(1, 2, 'c1'), addTurn(3, 4, 'c2'), { text: ['7'] }]);
    const agent = createAgent({ model, tools: { add: addTool }, store, sessionId: 'gone' });
    const sub = agent.events$.subscribe((event) => {
      if (event.type === 'tool-result' && event.toolCallId === 'c1') rmSync(file);
    });

    const result = await agent.run('go');
    sub.unsubscribe();

    expect(result.outcome).toBe('failed');
    expect(result.error).toMatchObject({ kind: 'session-write', message: expect.stringContaining('not recreated') });
    expect(readdirSync(dir()).filter((name) => name.endsWith('.jsonl'))).toEqual([]);
  });
});

describe('session files across failures and concurrent openers', () => {
  it('a session with a torn last line stays readable after the resumed agent appends to it', async () => {
    const store = fileStore(dir());
    await createAgent({ model: mockModel([{ text: ['one'] }]), store, sessionId: 's' }).run('first');
    await appendFile(path.join(dir(), 's.jsonl'), '{"type":"message","ind');
    const second = await createAgent({ model: mockModel([{ text: ['two'] }]), store, sessionId: 's' }).run('second');
    const third = createAgent({ model: mockModel([{ text: ['three'] }]), store, sessionId: 's' });
    await third.ready();
    expect(third.messages).toEqual(second.messages);
    expect((await readFile(path.join(dir(), 's.jsonl'), 'utf8')).endsWith('\n')).toBe(true);
  });

  it('one failed session write does not stop the later ones, and nothing is lost from the log', async () => {
    const inner = fileStore(dir());
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
    const written = (await readFile(path.join(dir(), 'f.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; id?: number })
      .filter((record) => record.type === 'checkpoint')
      .map((record) => record.id);
    expect(agent.checkpoints().map((checkpoint) => checkpoint.id)).toEqual(written);
  });

  it('run() before the session is open, on a session in the middle of a run, is refused instead of hanging', async () => {
    const store = fileStore(dir());
    const first = await runHeldAtCalling(store, 'r');
    const second = createAgent({ model: mockModel([{ text: ['resumed'] }]), store, sessionId: 'r' });
    await expect(second.run('another')).rejects.toThrow(AgentBusyError);
    expect((await second.resume())?.text).toBe('resumed');
    first.abort();
  });

  it("a run restored in the middle of an invalid-output retry still tells the model what did not match", async () => {
    const store = fileStore(dir());
    const weather = Output.object({ schema: z.object({ celsius: z.number() }) });
    const first = createAgent({ model: mockModel([{ text: ['{"celsius":"balmy"}'] }, { text: ['x'], holdBeforeFirst: true }]), output: weather, store, sessionId: 'reask' });
    void first.run('How warm is it?');
    await first.ready();
    await waitFor(first.actor, (state) => state.matches({ running: { llm: 'calling' } }) && state.context.run?.attempt === 2);
    // The calling checkpoint's write is queued on promise callbacks: let them run.
    await new Promise((resolve) => setImmediate(resolve));

    const model = mockModel([{ text: ['{"celsius":4}'] }]);
    const resumed = createAgent({ model, output: weather, store, sessionId: 'reask' });
    const result = await resumed.resume();

    expect(result).toMatchObject({ outcome: 'completed', output: { celsius: 4 } });
    const prompt = model.doStreamCalls[0]!.prompt;
    expect(prompt.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(JSON.stringify(prompt.at(-1))).toContain('celsius: Invalid input: expected number, received string');
    expect(JSON.stringify(result!.messages)).not.toContain('balmy');
    first.abort();
  });

  it('a checkpoint taken mid-run before runs had one tool runner resumes and runs its tools', async () => {
    const store = fileStore(dir());
    const first = await runHeldAtCalling(store, 'old');
    // Rewrite the session as a version without the run's tool runner wrote it: no `tools` child.
    const file = path.join(dir(), 'old.jsonl');
    const lines = (await readFile(file, 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as { type: string; snapshot?: { children?: Record<string, unknown> } });
    const checkpoints = lines.filter((line) => line.type === 'checkpoint');
    expect(checkpoints.at(-1)?.snapshot?.children).toHaveProperty('tools');
    for (const checkpoint of checkpoints) delete checkpoint.snapshot?.children?.['tools'];
    await writeFile(file, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);

    const resumed = createAgent({ model: mockModel([addTurn(1, 2, 'sum'), { text: ['3'] }]), tools: { add: addTool }, store, sessionId: 'old' });
    const result = await resumed.resume();
    expect(result?.outcome).toBe('completed');
    expect(result?.toolCallCount).toBe(1);
    expect(result?.text).toBe('3');
    await expectValidHistory(result!.messages);
    first.abort();
  });

  it('calls made before the session is open keep their order: a follow-up before run, an abort after', async () => {
    const store = fileStore(dir());
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
});

describe('checkpoint cost', () => {
  it('a checkpoint neither carries nor walks the history: XState persists a context whose history is already left out', async () => {
    const history = Array.from({ length: 1_000 }, (_, index): ModelMessage => ({ role: index % 2 ? 'assistant' : 'user', content: `message ${index}` }));
    const agent = createAgent({ model: mockModel([{ text: ['done'] }]), store: fileStore(dir()), sessionId: 'long', messages: history });
    await agent.ready();
    const persisted = vi.spyOn(agent.actor.logic, 'getPersistedSnapshot');
    await agent.run('one more');
    expect(persisted.mock.calls.length).toBeGreaterThan(0);
    for (const [snapshot] of persisted.mock.calls) expect(snapshot.context.messages).toHaveLength(0);
    const records = (await readFile(path.join(dir(), 'long.jsonl'), 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as { type: string; snapshot?: { context: { messages: unknown[] } } });
    const checkpoints = records.filter((record) => record.type === 'checkpoint');
    expect(checkpoints.length).toBeGreaterThan(0);
    for (const checkpoint of checkpoints) expect(checkpoint.snapshot?.context.messages).toEqual([]);
  });
});
