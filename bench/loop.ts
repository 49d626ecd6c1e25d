/**
 * Loop overhead: a 50-step tool loop (one call of a tool that returns at once
 * per step, then a 51st step that answers "done") on a zero-latency
 * MockLanguageModelV4 with pull-based streams. What is left is what each loop
 * costs per step: preparing the prompt, reading the stream, parsing the call,
 * running the tool, growing the history.
 */
import type { LanguageModelV4FunctionTool, LanguageModelV4Prompt, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { isStepCount, streamText, ToolLoopAgent, type ModelMessage } from 'ai';
import { streamLanguageModelCallStep } from '../src/model-call/stream-language-model-call-step.js';
import { createAgent, type StepFunction } from '../src/index.js';
import type { InspectionEvent } from 'xstate';
import { amount, check, echoTool, measureRounds, median, modelFreeToolStep, pairedRatio, ratio, times as asTimes, toolLoopModel, type Row } from './support.js';
import { xstateToolLoop } from './xstate-baseline.js';

const TOOL_STEPS = 50;
/** The steps of one run of the loop: 50 tool steps and the answer. */
export const STEPS = TOOL_STEPS + 1;
const tools = { echo: echoTool };

/** One 50-step loopchart run: the real model call, `streamLanguageModelCallStep`, or none (`'model-free'`: the machine alone). */
export async function loopchartLoop(step?: StepFunction | 'model-free', inspect?: (event: InspectionEvent) => void): Promise<void> {
  const chosen = step === 'model-free' ? modelFreeToolStep(TOOL_STEPS) : step;
  const agent = createAgent({ model: toolLoopModel(TOOL_STEPS), tools, maxSteps: STEPS, ...(chosen ? { step: chosen } : {}), ...(inspect ? { inspect } : {}) });
  const result = await agent.run('go');
  check(
    result.outcome === 'completed' && result.stepCount === STEPS && result.toolCallCount === TOOL_STEPS && result.text === 'done',
    `loopchart loop went wrong: ${result.outcome}, ${result.stepCount} steps, ${result.toolCallCount} tool calls, text ${JSON.stringify(result.text)}`,
  );
  check(result.messages.length === 2 + 2 * TOOL_STEPS, `loopchart history has ${result.messages.length} messages`);
}

/** The same loop through the AI SDK's `ToolLoopAgent.stream`, read to its end. */
export async function toolLoopAgent(): Promise<void> {
  const agent = new ToolLoopAgent({ model: toolLoopModel(TOOL_STEPS), tools, stopWhen: isStepCount(STEPS), maxRetries: 0 });
  const result = await agent.stream({ prompt: 'go' });
  // Everything is read from the stream itself: the result's getters (steps, responseMessages) replay the
  // buffered stream in the background after it ended, and that CPU would be billed to the next contestant.
  let toolResults = 0;
  let text = '';
  let steps = 0;
  for await (const part of result.stream) {
    if (part.type === 'tool-result') toolResults++;
    else if (part.type === 'text-delta') text += part.text;
    else if (part.type === 'finish-step') steps++;
  }
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
    // The step's messages are built from the stream, not read from result.responseMessages (see toolLoopAgent).
    let finishReason = '';
    const calls: Array<{ type: 'tool-call'; toolCallId: string; toolName: string; input: unknown }> = [];
    const results: Array<{ type: 'tool-result'; toolCallId: string; toolName: string; output: { type: 'json'; value: never } }> = [];
    let stepText = '';
    for await (const part of result.stream) {
      if (part.type === 'tool-call') calls.push({ type: 'tool-call', toolCallId: part.toolCallId, toolName: part.toolName, input: part.input });
      else if (part.type === 'tool-result') {
        toolResults++;
        results.push({ type: 'tool-result', toolCallId: part.toolCallId, toolName: part.toolName, output: { type: 'json', value: part.output as never } });
      } else if (part.type === 'text-delta') stepText += part.text;
      else if (part.type === 'finish-step') finishReason = part.finishReason;
    }
    text += stepText;
    steps++;
    messages.push({ role: 'assistant', content: [...(stepText ? [{ type: 'text' as const, text: stepText }] : []), ...calls] });
    if (results.length > 0) messages.push({ role: 'tool', content: results });
    if (finishReason !== 'tool-calls') break;
  }
  check(steps === STEPS && toolResults === TOOL_STEPS && text === 'done', `streamText loop went wrong: ${steps} steps, ${toolResults} tool results, text ${JSON.stringify(text)}`);
  check(messages.length === 2 + 2 * TOOL_STEPS, `streamText loop history has ${messages.length} messages`);
}

/**
 * The floor: a minimal hand-written loop over `model.doStream` that parses tool calls itself,
 * runs the tool and grows the provider-format prompt. No validation, events, approvals or
 * checkpoints: what any loop must at least do.
 */
async function floorLoop(): Promise<void> {
  const model = toolLoopModel(TOOL_STEPS);
  const prompt: LanguageModelV4Prompt = [{ role: 'user', content: [{ type: 'text', text: 'go' }] }];
  const functionTools: LanguageModelV4FunctionTool[] = [{ type: 'function', name: 'echo', description: 'echo', inputSchema: { type: 'object', properties: { n: { type: 'number' } } } }];
  let steps = 0;
  let toolResults = 0;
  let text = '';
  for (;;) {
    const { stream } = await model.doStream({ prompt, tools: functionTools });
    const reader = stream.getReader();
    const calls: Array<Extract<LanguageModelV4StreamPart, { type: 'tool-call' }>> = [];
    let finish = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (value.type === 'tool-call') calls.push(value);
      else if (value.type === 'text-delta') text += value.delta;
      else if (value.type === 'finish') finish = value.finishReason.unified;
    }
    steps++;
    if (calls.length === 0 || finish !== 'tool-calls') break;
    prompt.push({ role: 'assistant', content: calls.map((call) => ({ type: 'tool-call' as const, toolCallId: call.toolCallId, toolName: call.toolName, input: JSON.parse(call.input) as unknown })) });
    const outputs = await Promise.all(calls.map(async (call) => ({ call, output: (await echoTool.execute(JSON.parse(call.input) as { n: number }, { toolCallId: call.toolCallId, messages: [], context: {} })) as unknown })));
    toolResults += outputs.length;
    prompt.push({ role: 'tool', content: outputs.map(({ call, output }) => ({ type: 'tool-result' as const, toolCallId: call.toolCallId, toolName: call.toolName, output: { type: 'json' as const, value: output as never } })) });
  }
  check(steps === STEPS && toolResults === TOOL_STEPS && text === 'done', `floor loop went wrong: ${steps} steps, ${toolResults} tool results, text ${JSON.stringify(text)}`);
}

/** What XState did in one run, counted by kind (microsteps, events, snapshots, actors, actions by type). */
async function inspectionCounts(run: (inspect: (event: InspectionEvent) => void) => Promise<void>): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  const count = (key: string) => (counts[key] = (counts[key] ?? 0) + 1);
  await run((event) => {
    count(event.type);
    if (event.type === '@xstate.action') count(event.action.type);
  });
  return counts;
}

/**
 * The baseline must ask of XState what the model-free loop asks: the same microsteps, events,
 * snapshots, actors and actions (xstate's own: emit, sendTo, spawnChild, stopChild). Checked on
 * every run of the benchmark, so that a change to the chart cannot leave the baseline behind.
 */
async function checkBaselineMatchesTheChart(): Promise<void> {
  const chart = await inspectionCounts((inspect) => loopchartLoop('model-free', inspect));
  const baseline = await inspectionCounts((inspect) => xstateToolLoop(TOOL_STEPS, { inspect }));
  const keys = [...new Set([...Object.keys(chart), ...Object.keys(baseline)])].filter((key) => key.startsWith('@xstate.') || key.startsWith('xstate.')).sort();
  const differ = keys.filter((key) => chart[key] !== baseline[key]);
  check(
    differ.length === 0,
    `the XState baseline no longer does what a loopchart run does: ${differ.map((key) => `${key} ${baseline[key] ?? 0} against ${chart[key] ?? 0}`).join(', ')}`,
  );
}

export async function loopBench(): Promise<Row[]> {
  await checkBaselineMatchesTheChart();
  const times = await measureRounds(
    12,
    {
      loopchart: () => loopchartLoop(),
      direct: () => loopchartLoop(streamLanguageModelCallStep),
      machine: () => loopchartLoop('model-free'),
      xstate: () => xstateToolLoop(TOOL_STEPS),
      xstateInspected: () => xstateToolLoop(TOOL_STEPS, { inspect: () => undefined }),
      agent: toolLoopAgent,
      whileLoop: streamTextWhileLoop,
      floor: floorLoop,
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
  const machineVsXState = pairedRatio(times.machine, times.xstate);
  const vsFloor = pairedRatio(times.loopchart, times.floor);
  const ms = (runs: number[]) => `${perStep(runs).toFixed(3)} ms/step`;
  const us = (runs: number[]) => `${(perStep(runs) * 1000).toFixed(0)} µs/step`;
  return [
    {
      figure: `loopchart, ${TOOL_STEPS}-step tool loop`,
      value: ms(times.loopchart),
      ratio: `${ratio(vsAgent.loopchart)} ToolLoopAgent`,
      measure: asTimes(vsAgent.loopchart),
      target: '<= 0.25x',
      max: 0.25,
      headline: `(b) the ${TOOL_STEPS}-step loop vs ToolLoopAgent.stream`,
    },
    { figure: `loopchart + streamLanguageModelCallStep, ${TOOL_STEPS}-step tool loop`, value: ms(times.direct), ratio: `${ratio(vsAgent.direct)} ToolLoopAgent`, measure: asTimes(vsAgent.direct) },
    { figure: '  the machine alone (a step with no model)', value: us(times.machine), ratio: `${ratio(vsAgent.machine)} ToolLoopAgent`, measure: amount(perStep(times.machine) * 1000, 'µs', 0) },
    {
      figure: '  the XState baseline: the same transitions and children, bare (bench/xstate-baseline.ts)',
      value: us(times.xstate),
      ratio: `${ratio(pairedRatio(times.xstate, times.agent))} ToolLoopAgent`,
      measure: amount(perStep(times.xstate) * 1000, 'µs', 0),
    },
    {
      figure: '  the same baseline with an inspection observer that does nothing (as an inspect option adds)',
      value: us(times.xstateInspected),
      ratio: `${ratio(pairedRatio(times.xstateInspected, times.xstate))} the baseline`,
      measure: amount(perStep(times.xstateInspected) * 1000, 'µs', 0),
    },
    {
      figure: '  the machine alone vs the XState baseline',
      value: '',
      ratio: `${ratio(machineVsXState)} the baseline (${ratio(pairedRatio(times.machine, times.xstateInspected))} the inspected one)`,
      measure: asTimes(machineVsXState),
      target: '<= 2x',
      max: 2,
      headline: "(a) the machine's share of a tool step vs XState for the same transitions and children",
    },
    { figure: `ToolLoopAgent (isStepCount(${STEPS})), same loop`, value: ms(times.agent), measure: amount(perStep(times.agent), 'ms', 3) },
    { figure: 'while loop over streamText, same loop', value: ms(times.whileLoop), ratio: `${ratio(vsAgent.whileLoop)} ToolLoopAgent`, measure: asTimes(vsAgent.whileLoop) },
    {
      figure: 'the floor: a hand-written loop over model.doStream, same loop',
      value: ms(times.floor),
      ratio: `${ratio(pairedRatio(times.floor, times.agent))} ToolLoopAgent`,
      measure: amount(perStep(times.floor), 'ms', 3),
    },
    { figure: 'loopchart vs the floor', value: '', ratio: `${ratio(vsFloor)} the floor`, measure: asTimes(vsFloor) },
    { figure: 'loopchart vs the streamText while loop', value: '', ratio: ratio(pairedRatio(times.loopchart, times.whileLoop)), measure: asTimes(pairedRatio(times.loopchart, times.whileLoop)) },
    {
      figure: 'loopchart + streamLanguageModelCallStep vs the streamText while loop',
      value: '',
      ratio: ratio(pairedRatio(times.direct, times.whileLoop)),
      measure: asTimes(pairedRatio(times.direct, times.whileLoop)),
    },
  ];
}
