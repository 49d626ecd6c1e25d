/**
 * Parallel tools: one step that calls 8 tools of 100 ms each, then a step that
 * answers; the wall time of the whole run. The tools alone take 100 ms when
 * they run at once (800 ms one after another).
 */
import { streamLanguageModelCallStep } from '../src/model-call/stream-language-model-call-step.js';
import { createAgent, type StepFunction } from '../src/index.js';
import { amount, check, measureRounds, median, sleepTool, toolLoopModel, type Row } from './support.js';

const TOOLS = 8;

async function parallelRun(step?: StepFunction): Promise<void> {
  const agent = createAgent({
    model: toolLoopModel(1, { toolName: 'sleep', toolCallsPerStep: TOOLS }),
    tools: { sleep: sleepTool },
    ...(step ? { step } : {}),
  });
  const result = await agent.run('go');
  check(
    result.outcome === 'completed' && result.stepCount === 2 && result.toolCallCount === TOOLS,
    `parallel run went wrong: ${result.outcome}, ${result.stepCount} steps, ${result.toolCallCount} tool calls`,
  );
  const outputs = result.messages.flatMap((message) => (message.role === 'tool' ? message.content : [])).filter((part) => part.type === 'tool-result');
  check(outputs.length === TOOLS && outputs.every((part) => part.output.type === 'json'), 'parallel run: not every tool answered');
}

export async function parallelBench(): Promise<Row[]> {
  const times = await measureRounds(5, { loopchart: () => parallelRun(), direct: () => parallelRun(streamLanguageModelCallStep) }, { warmup: 1, runsPerBlock: 1 });
  const best = { loopchart: median(times.loopchart), direct: median(times.direct) };
  const row = (figure: string, ms: number): Row => ({ figure, value: `${ms.toFixed(1)} ms wall`, ratio: `${(ms / 100).toFixed(2)}x one tool`, measure: amount(ms, 'ms', 1), target: '< 150 ms', max: 150 });
  return [
    row(`loopchart, ${TOOLS} tools of 100 ms in one step`, best.loopchart),
    row(`loopchart + streamLanguageModelCallStep, ${TOOLS} tools of 100 ms in one step`, best.direct),
  ];
}
