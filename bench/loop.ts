/**
 * Loop overhead: a 50-step tool loop (one call of a tool that returns at once
 * per step, then a 51st step that answers "done") on a zero-latency
 * MockLanguageModelV4 with pull-based streams. What is left is what each loop
 * costs per step: preparing the prompt, reading the stream, parsing the call,
 * running the tool, growing the history.
 */
import { isStepCount, streamText, ToolLoopAgent, type ModelMessage } from 'ai';
import { streamLanguageModelCallStep } from '../src/actors/stream-language-model-call-step.js';
import { createAgent, type StepFunction } from '../src/index.js';
import { check, echoTool, measureRounds, median, modelFreeToolStep, pairedRatio, ratio, toolLoopModel, type Row } from './support.js';

const TOOL_STEPS = 50;
const STEPS = TOOL_STEPS + 1;
const tools = { echo: echoTool };

async function loopchartLoop(step?: StepFunction | 'model-free'): Promise<void> {
  const chosen = step === 'model-free' ? modelFreeToolStep(TOOL_STEPS) : step;
  const agent = createAgent({ model: toolLoopModel(TOOL_STEPS), tools, maxSteps: STEPS, ...(chosen ? { step: chosen } : {}) });
  const result = await agent.run('go');
  check(
    result.outcome === 'completed' && result.steps === STEPS && result.toolCalls === TOOL_STEPS && result.text === 'done',
    `loopchart loop went wrong: ${result.outcome}, ${result.steps} steps, ${result.toolCalls} tool calls, text ${JSON.stringify(result.text)}`,
  );
  check(result.messages.length === 2 + 2 * TOOL_STEPS, `loopchart history has ${result.messages.length} messages`);
}

async function toolLoopAgent(): Promise<void> {
  const agent = new ToolLoopAgent({ model: toolLoopModel(TOOL_STEPS), tools, stopWhen: isStepCount(STEPS), maxRetries: 0 });
  const result = await agent.stream({ prompt: 'go' });
  let toolResults = 0;
  let text = '';
  for await (const part of result.stream) {
    if (part.type === 'tool-result') toolResults++;
    else if (part.type === 'text-delta') text += part.text;
  }
  const steps = (await result.steps).length;
  check(steps === STEPS && toolResults === TOOL_STEPS && text === 'done', `ToolLoopAgent went wrong: ${steps} steps, ${toolResults} tool results, text ${JSON.stringify(text)}`);
}

async function streamTextWhileLoop(): Promise<void> {
  const model = toolLoopModel(TOOL_STEPS);
  const messages: ModelMessage[] = [{ role: 'user', content: 'go' }];
  let steps = 0;
  let toolResults = 0;
  let text = '';
  while (steps < STEPS) {
    const result = streamText({ model, tools, messages, maxRetries: 0 });
    for await (const part of result.stream) {
      if (part.type === 'tool-result') toolResults++;
      else if (part.type === 'text-delta') text += part.text;
    }
    steps++;
    messages.push(...(await result.responseMessages));
    if ((await result.finishReason) !== 'tool-calls') break;
  }
  check(steps === STEPS && toolResults === TOOL_STEPS && text === 'done', `streamText loop went wrong: ${steps} steps, ${toolResults} tool results, text ${JSON.stringify(text)}`);
  check(messages.length === 2 + 2 * TOOL_STEPS, `streamText loop history has ${messages.length} messages`);
}

export async function loopBench(): Promise<Row[]> {
  const times = await measureRounds(
    12,
    {
      loopchart: () => loopchartLoop(),
      direct: () => loopchartLoop(streamLanguageModelCallStep),
      machine: () => loopchartLoop('model-free'),
      agent: toolLoopAgent,
      whileLoop: streamTextWhileLoop,
    },
    { warmup: 2, runsPerBlock: 3 },
  );
  const perStep = (runs: number[]) => median(runs) / STEPS;
  const vsAgent = {
    loopchart: pairedRatio(times.loopchart, times.agent),
    direct: pairedRatio(times.direct, times.agent),
    machine: pairedRatio(times.machine, times.agent),
    whileLoop: pairedRatio(times.whileLoop, times.agent),
  };
  const ms = (runs: number[]) => `${perStep(runs).toFixed(3)} ms/step`;
  return [
    { figure: `loopchart, ${TOOL_STEPS}-step tool loop`, value: ms(times.loopchart), ratio: `${ratio(vsAgent.loopchart)} ToolLoopAgent`, target: '<= 0.5x', ok: vsAgent.loopchart <= 0.5 },
    { figure: `loopchart + streamLanguageModelCallStep, ${TOOL_STEPS}-step tool loop`, value: ms(times.direct), ratio: `${ratio(vsAgent.direct)} ToolLoopAgent` },
    { figure: '  the machine alone (a step with no model)', value: ms(times.machine), ratio: `${ratio(vsAgent.machine)} ToolLoopAgent` },
    { figure: `ToolLoopAgent (isStepCount(${STEPS})), same loop`, value: ms(times.agent) },
    { figure: 'while loop over streamText, same loop', value: ms(times.whileLoop), ratio: `${ratio(vsAgent.whileLoop)} ToolLoopAgent` },
    { figure: 'loopchart vs the streamText while loop', value: '', ratio: ratio(pairedRatio(times.loopchart, times.whileLoop)) },
    { figure: 'loopchart + streamLanguageModelCallStep vs the streamText while loop', value: '', ratio: ratio(pairedRatio(times.direct, times.whileLoop)) },
  ];
}
