/**
 * Session append cost: one step written to a file store at 10 and at 1,000
 * messages of history. Nothing is rewritten, so the two should cost the same.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ModelMessage } from 'ai';
import { fileStore } from '../src/persistence/file-store.js';
import { SessionRecorder } from '../src/persistence/session-recorder.js';
import { sessionHeader } from '../src/persistence/session-store.js';
import { defaultConfig, type AgentContext } from '../src/machines/context.js';
import { check, median, pairedRatio, ratio, type Row } from './support.js';

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
  const persisted = () => {
    const { value, context } = snapshotOf();
    return { status: 'active', value, context, children: {} };
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
