/**
 * The memory benchmark's measuring process (started by bench/memory.ts with
 * `--expose-gc`, so that the heap is measured after full collections in a
 * process that has done nothing else). Prints one JSON line.
 */
import type { ModelMessage } from 'ai';
import { createAgent, type Agent } from '../src/index.js';
import { echoTool, forgetfulTextModel, toolLoopModel } from './support.js';

export interface MemoryReport {
  agents: number;
  messagesPerAgent: number;
  historyBytesPerAgent: number;
  agentBytesPerAgent: number;
  createMicrosPerAgent: number;
  /** Beyond the history, after each agent ran once (its actor started, the run's two messages kept). */
  agentBytesAfterRunPerAgent: number;
  /** createAgent without a history, and with a 1,000-message one (median of rounds). */
  createEmptyMicros: number;
  createLongMicros: number;
  longHistoryMessages: number;
  /** One session of one-step runs: the heap it added over its first and its last block of runs, per message added. */
  sessionRunsPerBlock: number;
  sessionBlocks: number;
  sessionFirstBlockBytesPerMessage: number;
  sessionLastBlockBytesPerMessage: number;
}

const AGENTS = 10_000;
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('bench/memory-child.ts needs node --expose-gc');

function heapUsed(): number {
  for (let i = 0; i < 4; i++) gc!();
  return process.memoryUsage().heapUsed;
}

/**
 * A 20-message history of its own for agent `n`: five rounds of a question, a
 * tool call, its result and an answer. Every string is built at run time, so
 * nothing is shared between agents.
 */
function history(n: number): ModelMessage[] {
  const messages: ModelMessage[] = [];
  for (let round = 0; round < 5; round++) {
    const toolCallId = `call-${n}-${round}`;
    messages.push({ role: 'user', content: `Agent ${n}, round ${round}: what does src/module-${round}.ts export, and is it tested?` });
    messages.push({
      role: 'assistant',
      content: [
        { type: 'text', text: `Reading src/module-${round}.ts for agent ${n}.` },
        { type: 'tool-call', toolCallId, toolName: 'echo', input: { n: n * 10 + round } },
      ],
    });
    messages.push({ role: 'tool', content: [{ type: 'tool-result', toolCallId, toolName: 'echo', output: { type: 'json', value: n * 10 + round } }] });
    messages.push({ role: 'assistant', content: [{ type: 'text', text: `It exports run${round}() and handler${n}; test/module-${round}.test.ts covers both.` }] });
  }
  return messages;
}

const model = toolLoopModel(0);
const tools = { echo: echoTool };

const base = heapUsed();
const histories = Array.from({ length: AGENTS }, (_, n) => history(n));
const withHistories = heapUsed();

const started = performance.now();
const agents: Agent[] = histories.map((messages) => createAgent({ model, tools, messages }));
const createMs = performance.now() - started;
const withAgents = heapUsed();

if (!agents.every((agent) => !agent.isRunning && agent.messages.length === 20)) throw new Error('an agent is not idle with its 20 messages');

// createAgent alone, empty and with a 1,000-message history (median of rounds of 100).
function createMicros(messages: ModelMessage[] | undefined): number {
  const rounds: number[] = [];
  for (let round = 0; round < 7; round++) {
    const started = performance.now();
    for (let i = 0; i < 100; i++) createAgent({ model, tools, ...(messages ? { messages } : {}) });
    rounds.push(((performance.now() - started) * 1000) / 100);
  }
  return rounds.sort((a, b) => a - b)[3]!;
}
const longHistory = Array.from({ length: 50 }, (_, round) => history(AGENTS + round)).flat();
const createEmptyMicros = createMicros(undefined);
const createLongMicros = createMicros(longHistory);

// The same agents after one run each (an idle agent starts its actor only when first used).
for (const agent of agents) {
  const result = await agent.run('one more question');
  if (result.outcome !== 'completed' || agent.messages.length !== 22) throw new Error(`a run went wrong: ${result.outcome}`);
}
const afterOneRun = heapUsed();
if (histories.length !== AGENTS) throw new Error('histories lost');

// One long session: the heap a block of runs adds must not grow as the session does.
const SESSION_BLOCKS = 4;
const SESSION_RUNS = 1_000;
const session = createAgent({ model: forgetfulTextModel() });
await session.run('warm up');
const blockBytes: number[] = [];
let before = heapUsed();
for (let block = 0; block < SESSION_BLOCKS; block++) {
  for (let run = 0; run < SESSION_RUNS; run++) {
    const result = await session.run(`question ${block}-${run}`);
    if (result.outcome !== 'completed') throw new Error(`a session run went wrong: ${result.outcome}`);
  }
  const after = heapUsed();
  blockBytes.push(after - before);
  before = after;
}
if (session.messages.length !== 2 * (SESSION_BLOCKS * SESSION_RUNS + 1)) throw new Error(`the session has ${session.messages.length} messages`);

const report: MemoryReport = {
  agents: AGENTS,
  messagesPerAgent: 20,
  historyBytesPerAgent: (withHistories - base) / AGENTS,
  agentBytesPerAgent: (withAgents - withHistories) / AGENTS,
  createMicrosPerAgent: (createMs * 1000) / AGENTS,
  agentBytesAfterRunPerAgent: (afterOneRun - withHistories) / AGENTS,
  createEmptyMicros,
  createLongMicros,
  longHistoryMessages: longHistory.length,
  sessionRunsPerBlock: SESSION_RUNS,
  sessionBlocks: SESSION_BLOCKS,
  sessionFirstBlockBytesPerMessage: blockBytes[0]! / (2 * SESSION_RUNS),
  sessionLastBlockBytesPerMessage: blockBytes.at(-1)! / (2 * SESSION_RUNS),
};
console.log(JSON.stringify(report));
