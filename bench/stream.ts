/**
 * Stream throughput: text deltas through agent.run against bare streamText
 * consumption of the same pull-based mock stream, in the same process.
 */
import { streamText } from 'ai';
import { createAgent } from '../src/index.js';
import { bestOf, textDeltaModel, type Row } from './support.js';

async function loopchartRun(deltas: number): Promise<void> {
  const agent = createAgent({ model: textDeltaModel(deltas) });
  let received = 0;
  agent.events$.subscribe((event) => {
    if (event.type === 'text-delta') received++;
  });
  const result = await agent.run('go');
  if (result.outcome !== 'completed' || received !== deltas || result.text.length !== deltas) {
    throw new Error(`loopchart run went wrong: ${result.outcome}, ${received} deltas, ${result.text.length} chars`);
  }
}

async function bareStreamText(deltas: number): Promise<void> {
  const result = streamText({ model: textDeltaModel(deltas), prompt: 'go', maxRetries: 0 });
  let received = 0;
  for await (const part of result.stream) if (part.type === 'text-delta') received++;
  if (received !== deltas) throw new Error(`streamText delivered ${received} of ${deltas} deltas`);
}

export async function streamBench(): Promise<Row[]> {
  const small = 10_000;
  const large = 100_000;
  await loopchartRun(2_000);
  await bareStreamText(2_000);
  const loopSmall = (await bestOf(5, () => loopchartRun(small))) / small;
  const loopLarge = (await bestOf(3, () => loopchartRun(large))) / large;
  const bareLarge = (await bestOf(2, () => bareStreamText(large))) / large;
  const us = (msPerDelta: number) => `${(msPerDelta * 1000).toFixed(2)} µs/delta (${Math.round(1000 / msPerDelta).toLocaleString('en-US')} chunks/s)`;
  return [
    { figure: 'loopchart, 10,000 deltas', value: us(loopSmall) },
    { figure: 'loopchart, 100,000 deltas', value: us(loopLarge), ratio: `${(loopLarge / loopSmall).toFixed(2)}x the 10k cost`, target: '<= 1.5x', ok: loopLarge / loopSmall <= 1.5 },
    { figure: 'bare streamText, 100,000 deltas', value: us(bareLarge) },
    { figure: 'loopchart vs bare streamText', value: '', ratio: `${(loopLarge / bareLarge).toFixed(3)}x`, target: '<= 1.5x', ok: loopLarge / bareLarge <= 1.5 },
  ];
}
