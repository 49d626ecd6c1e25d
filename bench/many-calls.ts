/**
 * Many tool calls in one step: one step that makes N calls of a no-op tool,
 * then a step that answers; the cost per call. A step's calls run in one tool
 * runner actor, so a call costs the same at 10 and at 1,000 calls (the run's
 * fixed cost spreads over more calls, so the figure falls). With one child
 * actor per call it grew with N: XState copies its children map whenever a
 * child stops. `maxToolCallsPerStep` (128) still bounds a step.
 */
import { createAgent } from '../src/index.js';
import { check, echoTool, measureRounds, median, times as asTimes, toolLoopModel, type Row } from './support.js';

async function manyCallsRun(calls: number): Promise<void> {
  const agent = createAgent({ model: toolLoopModel(1, { toolName: 'echo', toolCallsPerStep: calls }), tools: { echo: echoTool }, maxToolCallsPerStep: 1_000 });
  const result = await agent.run('go');
  check(result.outcome === 'completed' && result.toolCallCount === calls, `many calls (${calls}) went wrong: ${result.outcome}, ${result.toolCallCount} tool calls`);
}

export async function manyCallsBench(): Promise<Row[]> {
  const sizes = [10, 100, 1_000] as const;
  const times = await measureRounds(3, { c10: () => manyCallsRun(10), c100: () => manyCallsRun(100), c1000: () => manyCallsRun(1_000) }, { warmup: 1, runsPerBlock: 1 });
  const perCall = (size: (typeof sizes)[number]) => (median(times[`c${size}`]) * 1000) / size;
  const base = perCall(10);
  return sizes.map((size): Row => ({
    figure: `${size} tool calls in one step (cap raised to 1,000), per call`,
    value: `${perCall(size).toFixed(1)} µs/call`,
    ratio: `${(perCall(size) / base).toFixed(2)}x the 10-call cost`,
    measure: asTimes(perCall(size) / base),
    target: 'no more than the 10-call cost (1.2x with noise)',
    max: 1.2,
  }));
}
