/**
 * Stream throughput: text deltas of one pull-based mock stream, read
 * - raw: `model.doStream` read directly, counting deltas (the physical limit);
 * - by `directStep` on its own (no agent);
 * - through `agent.run` with the default step (`directStep`) and with `streamLanguageModelCallStep` (an
 *   `events$` subscriber counts every delta);
 * - by a bare `streamText` call.
 */
import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { streamText } from 'ai';
import { directStep } from '../src/model-call/direct-step.js';
import { streamLanguageModelCallStep } from '../src/model-call/stream-language-model-call-step.js';
import { createAgent, type StepFunction } from '../src/index.js';
import { amount, check, measureRounds, median, pairedRatio, ratio, textDeltaModel, times, type Row } from './support.js';

async function rawProviderStream(deltas: number): Promise<void> {
  const { stream } = await textDeltaModel(deltas).doStream({ prompt: [{ role: 'user', content: [{ type: 'text', text: 'go' }] }] });
  const reader: ReadableStreamDefaultReader<LanguageModelV4StreamPart> = stream.getReader();
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (value.type === 'text-delta') received++;
  }
  check(received === deltas, `raw stream delivered ${received} of ${deltas} deltas`);
}

async function stepAlone(step: StepFunction, deltas: number): Promise<void> {
  let received = 0;
  let finished = false;
  const parts = step({ model: textDeltaModel(deltas), messages: [{ role: 'user', content: 'go' }], tools: {}, abortSignal: new AbortController().signal });
  for await (const part of parts) {
    if (part.type === 'text-delta') received++;
    else if (part.type === 'finish') finished = true;
  }
  check(received === deltas && finished, `step delivered ${received} of ${deltas} deltas, finish: ${finished}`);
}

async function loopchartRun(deltas: number, step?: StepFunction): Promise<void> {
  const agent = createAgent({ model: textDeltaModel(deltas), ...(step ? { step } : {}) });
  let received = 0;
  agent.events$.subscribe((event) => {
    if (event.type === 'text-delta') received++;
  });
  const result = await agent.run('go');
  check(
    result.outcome === 'completed' && received === deltas && result.text.length === deltas,
    `loopchart run went wrong: ${result.outcome}, ${received} deltas, ${result.text.length} chars`,
  );
}

async function bareStreamText(deltas: number): Promise<void> {
  const result = streamText({ model: textDeltaModel(deltas), prompt: 'go', maxRetries: 0 });
  let received = 0;
  for await (const part of result.stream) if (part.type === 'text-delta') received++;
  check(received === deltas, `streamText delivered ${received} of ${deltas} deltas`);
}

export async function streamBench(): Promise<Row[]> {
  const small = 10_000;
  const large = 100_000;
  // Warm-up: every path a few times, so that the JIT has seen it.
  for (let i = 0; i < 3; i++) {
    await rawProviderStream(2_000);
    await stepAlone(directStep, 2_000);
    await loopchartRun(2_000);
    await loopchartRun(2_000, streamLanguageModelCallStep);
    await bareStreamText(2_000);
  }
  // One set of rounds, so that every ratio (flatness included) pairs runs made moments apart.
  const runs = await measureRounds(
    7,
    {
      raw: () => rawProviderStream(large),
      direct: () => stepAlone(directStep, large),
      loopSmall: () => loopchartRun(small),
      loop: () => loopchartRun(large),
      loopDirectSmall: () => loopchartRun(small, streamLanguageModelCallStep),
      loopDirect: () => loopchartRun(large, streamLanguageModelCallStep),
    },
    { runsPerBlock: 2 },
  );
  // streamText is ~50x slower than the others: fewer rounds, each paired with loopchart runs of its own.
  const bareRuns = await measureRounds(
    3,
    { bare: () => bareStreamText(large), raw: () => rawProviderStream(large), loop: () => loopchartRun(large), loopDirect: () => loopchartRun(large, streamLanguageModelCallStep) },
    { warmup: 0, runsPerBlock: 1 },
  );

  const perDelta = (times: number[], deltas: number) => median(times) / deltas;
  const raw = perDelta(runs.raw, large);
  const direct = perDelta(runs.direct, large);
  const loopSmall = perDelta(runs.loopSmall, small);
  const loopLarge = perDelta(runs.loop, large);
  const directSmall = perDelta(runs.loopDirectSmall, small);
  const directLarge = perDelta(runs.loopDirect, large);
  const bare = perDelta(bareRuns.bare, large);
  const vsRaw = {
    direct: pairedRatio(runs.direct, runs.raw),
    loop: pairedRatio(runs.loop, runs.raw),
    loopDirect: pairedRatio(runs.loopDirect, runs.raw),
  };
  /** Per-delta cost at 100,000 deltas over the cost at 10,000, paired by round. */
  const flatness = {
    loop: (pairedRatio(runs.loop, runs.loopSmall) * small) / large,
    loopDirect: (pairedRatio(runs.loopDirect, runs.loopDirectSmall) * small) / large,
  };
  const vsBare = { loop: pairedRatio(bareRuns.loop, bareRuns.bare), loopDirect: pairedRatio(bareRuns.loopDirect, bareRuns.bare) };
  const us = (msPerDelta: number) => `${(msPerDelta * 1000).toFixed(2)} µs/delta (${Math.round(1000 / msPerDelta).toLocaleString('en-US')} chunks/s)`;
  const usMeasure = (msPerDelta: number) => amount(msPerDelta * 1000, 'µs', 2);
  return [
    { figure: 'raw provider stream (doStream), 100,000 deltas', value: us(raw), ratio: 'the physical limit', measure: usMeasure(raw) },
    { figure: 'directStep alone, 100,000 deltas', value: us(direct), ratio: `${ratio(vsRaw.direct)} raw`, measure: times(vsRaw.direct), target: '<= 3x raw', max: 3 },
    { figure: 'loopchart, 10,000 deltas', value: us(loopSmall), measure: usMeasure(loopSmall) },
    { figure: 'loopchart, 100,000 deltas', value: us(loopLarge), ratio: `${ratio(flatness.loop)} the 10k cost`, measure: times(flatness.loop), target: '<= 1.5x', max: 1.5 },
    { figure: 'loopchart + streamLanguageModelCallStep, 10,000 deltas', value: us(directSmall), measure: usMeasure(directSmall) },
    {
      figure: 'loopchart + streamLanguageModelCallStep, 100,000 deltas',
      value: us(directLarge),
      ratio: `${ratio(flatness.loopDirect)} the 10k cost`,
      measure: times(flatness.loopDirect),
      target: '<= 1.5x',
      max: 1.5,
    },
    { figure: 'bare streamText, 100,000 deltas', value: us(bare), ratio: `${ratio(pairedRatio(bareRuns.bare, bareRuns.raw), 1)} raw`, measure: usMeasure(bare) },
    {
      figure: 'loopchart vs raw provider stream (a delta through agent.run to an events$ subscriber)',
      value: '',
      ratio: ratio(vsRaw.loop),
      measure: times(vsRaw.loop),
      target: '<= 2x',
      max: 2,
      headline: '(c) a text delta through events$ vs the raw doStream read, 100,000 deltas',
    },
    { figure: 'loopchart + streamLanguageModelCallStep vs raw provider stream', value: '', ratio: ratio(vsRaw.loopDirect), measure: times(vsRaw.loopDirect) },
    { figure: 'loopchart vs bare streamText', value: '', ratio: ratio(vsBare.loop, 3), measure: times(vsBare.loop, 3), target: '<= 1.5x', max: 1.5 },
    {
      figure: 'loopchart + streamLanguageModelCallStep vs bare streamText',
      value: '',
      ratio: ratio(vsBare.loopDirect, 3),
      measure: times(vsBare.loopDirect, 3),
      target: '<= 1.5x',
      max: 1.5,
    },
  ];
}
