/**
 * Inspector overhead: a 100,000-delta run with the WebSocket inspector
 * attached (through the 127.0.0.1 relay, with a receiver reading everything)
 * against the same run without it.
 */
import { createWebSocketReceiver, type StatelyInspectionEvent } from '@statelyai/inspect';
import { createAgent } from '../src/agent.js';
import { createWebSocketInspector } from '../src/inspect/inspectors.js';
import { startInspectorRelay } from '../src/inspect/inspector-relay.js';
import { stateName } from '../src/machines/state-name.js';
import { check, median, ratio, textDeltaModel, type Row } from './support.js';

const DELTAS = 100_000;

async function plainRun(): Promise<number> {
  const started = performance.now();
  const result = await createAgent({ model: textDeltaModel(DELTAS) }).run('go');
  check(result.outcome === 'completed' && result.text.length === DELTAS, 'the plain run must stream every delta');
  return performance.now() - started;
}

async function inspectedRun(): Promise<number> {
  const relay = await startInspectorRelay();
  const received: StatelyInspectionEvent[] = [];
  const receiver = createWebSocketReceiver({ server: relay.webSocketUrl });
  receiver.subscribe((event) => received.push(event));
  const inspector = createWebSocketInspector({ url: relay.webSocketUrl });
  await new Promise((resolve) => setTimeout(resolve, 100));
  try {
    const started = performance.now();
    const agent = createAgent({ model: textDeltaModel(DELTAS), inspect: inspector.inspect });
    const result = await agent.run('go');
    check(result.outcome === 'completed', 'the inspected run must complete');
    // Finished only once the receiver has the final idle snapshot of the root.
    const sawEnd = () =>
      received.some((event) => event.type === '@xstate.snapshot' && event.rootId === event.sessionId && stateName((event.snapshot as unknown as { value: unknown }).value) === 'idle' && event.event.type !== 'xstate.init');
    while (!sawEnd()) {
      if (performance.now() - started > 60_000) throw new Error('the receiver never got the end of the run');
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    return performance.now() - started;
  } finally {
    inspector.stop();
    await relay.close();
  }
}

export async function inspectorBench(): Promise<Row[]> {
  await plainRun();
  const plain: number[] = [];
  const inspected: number[] = [];
  for (let round = 0; round < 3; round++) {
    plain.push(await plainRun());
    inspected.push(await inspectedRun());
  }
  const overhead = median(inspected) / median(plain);
  return [
    { figure: 'loopchart, 100,000 deltas, no inspector', value: `${median(plain).toFixed(0)} ms` },
    {
      figure: 'same run, WebSocket inspector attached',
      value: `${median(inspected).toFixed(0)} ms (receiver has everything)`,
      ratio: `${ratio(overhead)} without`,
      target: '<= 2x',
      ok: overhead <= 2,
    },
  ];
}
