/**
 * Session append cost: one step written to a file store at 10 and at 1,000
 * messages of history. Nothing is rewritten, so the two should cost the same.
 * And what users pay: a real agent's one-step run, with and without a store,
 * at 10 and at 10,000 messages of history (the checkpoint and the step must not
 * grow with the session).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ModelMessage } from 'ai';
import { createAgent } from '../src/agent.js';
import { fileStore } from '../src/persistence/file-store.js';
import { SessionRecorder } from '../src/persistence/session-recorder.js';
import { checkpointSnapshot } from '../src/persistence/checkpoint-snapshot.js';
import { sessionHeader } from '../src/persistence/session-store.js';
import { defaultConfig, type AgentContext } from '../src/machine/context.js';
import { check, median, pairedRatio, ratio, textDeltaModel, type Row } from './support.js';

function history(count: number): ModelMessage[] {
  return Array.from({ length: count }, (_, i): ModelMessage =>
    i % 2 ? { role: 'assistant', content: `answer ${i} ${'x'.repeat(300)}` } : { role: 'user', content: `question ${i} ${'y'.repeat(300)}` },
  );
}

/** A recorder with a history of `count` messages already written, ready to append steps to. */
async function primed(dir: string, count: number) {
  const store = fileStore(dir);
  const sessionId = `s${count}`;
  await store.create(sessionHeader(sessionId));
  const recorder = new SessionRecorder(store, sessionId, { messages: [], checkpoints: [] });
  let messages = history(count);
  let step = 0;
  const snapshotOf = (): { value: unknown; context: AgentContext; hasTag(tag: string): boolean } => ({
    value: { running: { llm: 'calling' } },
    hasTag: (tag: string) => tag === 'checkpoint',
    context: {
      config: defaultConfig,
      messages,
      queues: { steering: [], followUps: [] },
      prunedToolCallIds: [],
      run: { id: 'run', steps: ++step, attempt: 1 } as AgentContext['run'],
    },
  });
  // What the agent hands the recorder: the persisted snapshot without the history (persistedWithoutHistory).
  const persisted = () => {
    const { value, context } = snapshotOf();
    return checkpointSnapshot({ status: 'active', value, context, children: {} });
  };
  await recorder.observe(snapshotOf(), persisted);
  /**
   * Appends one step (an assistant message, a tool message and a checkpoint)
   * and returns the milliseconds the append took. The new history array is
   * built before the clock starts: copying it is the caller's cost, not the store's.
   */
  return async (): Promise<number> => {
    messages = [...messages, { role: 'assistant', content: 'next step' }, { role: 'user', content: 'tool said ok' }];
    const started = performance.now();
    const write = recorder.observe(snapshotOf(), persisted);
    check(write !== undefined, 'a step boundary must write');
    await write;
    return performance.now() - started;
  };
}

/** An agent with `count` messages of history (and a file store when `dir` is given), warmed up; returns the milliseconds of one one-step run. */
async function agentRun(count: number, dir: string | undefined): Promise<() => Promise<number>> {
  const agent = createAgent({
    model: textDeltaModel(1),
    messages: history(count),
    ...(dir ? { store: fileStore(dir), sessionId: `agent${count}` } : {}),
  });
  await agent.ready();
  for (let i = 0; i < 3; i++) check((await agent.run('warm up')).outcome === 'completed', 'a warm-up run must complete');
  return async () => {
    const started = performance.now();
    const result = await agent.run('one more');
    const took = performance.now() - started;
    check(result.outcome === 'completed' && result.stepCount === 1, 'a measured run must complete in one step');
    return took;
  };
}

/** Per-run medians of two contestants, interleaved over rounds (the first round warms up). */
async function interleaved(a: () => Promise<number>, b: () => Promise<number>, rounds = 7, runs = 15): Promise<{ a: number[]; b: number[] }> {
  const times = { a: [] as number[], b: [] as number[] };
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? (['a', 'b'] as const) : (['b', 'a'] as const);
    for (const name of order) {
      const run = name === 'a' ? a : b;
      const perRun: number[] = [];
      for (let i = 0; i < runs; i++) perRun.push(await run());
      if (round > 0) times[name].push(median(perRun));
    }
  }
  return times;
}

export async function historyGrowthBench(): Promise<Row[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'loopchart-bench-'));
  try {
    const stored = await interleaved(await agentRun(10, dir), await agentRun(10_000, dir));
    const plain = await interleaved(await agentRun(10, undefined), await agentRun(10_000, undefined));
    const storedGrowth = pairedRatio(stored.b, stored.a);
    const plainGrowth = pairedRatio(plain.b, plain.a);
    const ms = (values: number[]) => `${median(values).toFixed(2)} ms/run`;
    return [
      { figure: 'one-step run with fileStore, 10 messages of history', value: ms(stored.a) },
      { figure: 'one-step run with fileStore, 10,000 messages of history', value: ms(stored.b), ratio: `${ratio(storedGrowth)} the 10-message run`, target: '<= 1.3x', ok: storedGrowth <= 1.3 },
      { figure: 'one-step run without a store, 10 messages of history', value: ms(plain.a) },
      { figure: 'one-step run without a store, 10,000 messages of history', value: ms(plain.b), ratio: `${ratio(plainGrowth)} the 10-message run`, target: '<= 1.3x', ok: plainGrowth <= 1.3 },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function persistenceBench(): Promise<Row[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'loopchart-bench-'));
  try {
    const small = await primed(dir, 10);
    const large = await primed(dir, 1000);
    const stepsPerRound = 50;
    const times = { small: [] as number[], large: [] as number[] };
    for (let round = 0; round < 8; round++) {
      // Alternate who goes first; the first round warms up.
      const order = round % 2 === 0 ? (['small', 'large'] as const) : (['large', 'small'] as const);
      for (const name of order) {
        const append = name === 'small' ? small : large;
        const perStep: number[] = [];
        for (let i = 0; i < stepsPerRound; i++) perStep.push(await append());
        if (round > 0) times[name].push(median(perStep));
      }
    }
    const perStep = (values: number[]) => median(values) * 1000;
    const growth = pairedRatio(times.large, times.small);
    return [
      { figure: 'session append, 10 messages of history', value: `${perStep(times.small).toFixed(1)} µs/step` },
      { figure: 'session append, 1,000 messages of history', value: `${perStep(times.large).toFixed(1)} µs/step`, ratio: `${ratio(growth)} the 10-message cost`, target: '<= 1.5x (O(1))', ok: growth <= 1.5 },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
