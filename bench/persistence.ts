/**
 * Session append cost: one step written to a file store at 10 and at 1,000
 * messages of history. Nothing is rewritten, so the two should cost the same.
 * (What a whole step costs as the session grows: bench/history-growth.ts.)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileStore } from '../src/persistence/file-store.js';
import { SessionRecorder } from '../src/persistence/session-recorder.js';
import { checkpointSnapshot } from '../src/persistence/checkpoint-snapshot.js';
import { sessionHeader } from '../src/persistence/session-store.js';
import { defaultConfig, type AgentContext } from '../src/machine/context.js';
import { amount, check, history, median, pairedRatio, ratio, times, type Row } from './support.js';
import { MessageHistory } from '../src/core/message-history.js';

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
      messages: MessageHistory.from(messages),
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

export async function persistenceBench(): Promise<Row[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'loopchart-bench-'));
  try {
    const small = await primed(dir, 10);
    const large = await primed(dir, 1000);
    const stepsPerRound = 50;
    const measured = { small: [] as number[], large: [] as number[] };
    for (let round = 0; round < 8; round++) {
      // Alternate who goes first; the first round warms up.
      const order = round % 2 === 0 ? (['small', 'large'] as const) : (['large', 'small'] as const);
      for (const name of order) {
        const append = name === 'small' ? small : large;
        const perStep: number[] = [];
        for (let i = 0; i < stepsPerRound; i++) perStep.push(await append());
        if (round > 0) measured[name].push(median(perStep));
      }
    }
    const perStep = (values: number[]) => median(values) * 1000;
    const growth = pairedRatio(measured.large, measured.small);
    return [
      { figure: 'session append, 10 messages of history', value: `${perStep(measured.small).toFixed(1)} µs/step`, measure: amount(perStep(measured.small), 'µs', 1) },
      {
        figure: 'session append, 1,000 messages of history',
        value: `${perStep(measured.large).toFixed(1)} µs/step`,
        ratio: `${ratio(growth)} the 10-message cost`,
        measure: times(growth),
        target: '<= 1.5x (O(1))',
        max: 1.5,
      },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
