/**
 * Runs one benchmark scenario for a while, to be profiled:
 *
 *   npm run build
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof --import ./bench/as-built.mjs --import tsx bench/profile.ts loop-direct
 *   npx tsx bench/cpuprofile-summary.ts /tmp/prof
 *
 * Scenarios: stream-default, stream-direct (100,000-delta runs through
 * agent.run), loop-default, loop-direct, loop-machine (the 50-step tool loop;
 * loop-machine with a step that has no model), step-direct (directStep alone
 * over the loop's 51 histories), loop-inspected (the 50-step tool loop with the WebSocket
 * inspector, relay and viewer of bench/inspector.ts), history-10 and history-10000 (the 10-step tool loop without a
 * store of bench/history-growth.ts, from 10 and from 10,000 messages of history).
 */
import type { ModelMessage } from 'ai';
import { directStep } from '../src/model-call/direct-step.js';
import { createAgent, type StepFunction } from '../src/index.js';
import { check, echoTool, forgetfulToolLoopModel, history as historyOf, modelFreeToolStep, textDeltaModel, toolLoopModel } from './support.js';

const seconds = Number(process.argv[3] ?? 8);
const tools = { echo: echoTool };

async function stream(step?: StepFunction): Promise<number> {
  const deltas = 100_000;
  const result = await createAgent({ model: textDeltaModel(deltas), ...(step ? { step } : {}) }).run('go');
  check(result.text.length === deltas, 'stream run went wrong');
  return deltas;
}

async function loop(step?: StepFunction): Promise<number> {
  const result = await createAgent({ model: toolLoopModel(50), tools, maxSteps: 51, ...(step ? { step } : {}) }).run('go');
  check(result.stepCount === 51, `loop run went wrong: ${result.outcome}`);
  return 51;
}

let inspected: Awaited<ReturnType<typeof import('./inspector.js').inspectedSetup>> | undefined;

/** The tool loop with the WebSocket inspector, through the relay, to the viewer in a process of its own, until the viewer has the end. */
async function loopInspected(): Promise<number> {
  // Imported here: the other scenarios' profiles do not load the relay.
  inspected ??= await (await import('./inspector.js')).inspectedSetup();
  await inspected.run();
  return 51;
}

const startingHistories = new Map<number, ModelMessage[]>();

/** Seven runs of a 10-step loop on one agent from `count` messages of history, as bench/history-growth.ts runs them. */
async function fromHistory(count: number): Promise<number> {
  const messages = startingHistories.get(count) ?? historyOf(count);
  startingHistories.set(count, messages);
  const agent = createAgent({ model: forgetfulToolLoopModel(10), tools, maxSteps: 11, messages });
  for (let run = 0; run < 7; run++) check((await agent.run('go')).stepCount === 11, 'history run went wrong');
  return 7 * 11;
}

const histories: ModelMessage[][] = [];
const history: ModelMessage[] = [{ role: 'user', content: 'go' }];
for (let call = 1; call <= 51; call++) {
  histories.push([...history]);
  const toolCallId = `call-${call}-0`;
  history.push({ role: 'assistant', content: [{ type: 'tool-call', toolCallId, toolName: 'echo', input: { n: call * 100 } }] });
  history.push({ role: 'tool', content: [{ type: 'tool-result', toolCallId, toolName: 'echo', output: { type: 'json', value: call * 100 } }] });
}

async function stepAlone(): Promise<number> {
  const model = toolLoopModel(50);
  for (const messages of histories) {
    const controller = new AbortController();
    for await (const _part of directStep({ model, messages, tools, abortSignal: controller.signal }));
  }
  return histories.length;
}

const scenarios: Record<string, [unit: string, run: () => Promise<number>]> = {
  'stream-default': ['delta', () => stream()],
  'stream-direct': ['delta', () => stream(directStep)],
  'loop-default': ['step', () => loop()],
  'loop-direct': ['step', () => loop(directStep)],
  'loop-machine': ['step', () => loop(modelFreeToolStep(50))],
  'step-direct': ['call', stepAlone],
  'loop-inspected': ['step', loopInspected],
  'history-10': ['step', () => fromHistory(10)],
  'history-10000': ['step', () => fromHistory(10_000)],
};

const name = process.argv[2] ?? 'loop-direct';
const scenario = scenarios[name];
if (scenario === undefined) throw new Error(`unknown scenario ${name}; one of ${Object.keys(scenarios).join(', ')}`);
const [unit, run] = scenario;
const started = performance.now();
let units = 0;
while (performance.now() - started < seconds * 1000) units += await run();
console.log(`${name}: ${(((performance.now() - started) * 1000) / units).toFixed(2)} µs per ${unit} over ${units.toLocaleString('en-US')} ${unit}s`);
await inspected?.close();
