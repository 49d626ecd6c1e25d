import { tool, type ModelMessage } from 'ai';
import { z } from 'zod';
import { streamLanguageModelCallStep } from '../../src/model-call/stream-language-model-call-step.js';
import { createAgent } from '../../src/agent.js';
import type { AgentEvent } from '../../src/core/events.js';
import { scriptedModel } from '../../src/test/scripted-model.js';
import type { Outcome, RunResult } from '../../src/core/result.js';
import { addTool, failTool } from '../support/tools.js';
import type { AgentScript } from './agent-scripts.js';
import { MessageLedger, toolAnswerProblems } from './invariants.js';

const echoTool = tool({
  description: 'Echoes its text',
  inputSchema: z.object({ text: z.string() }),
  execute: async ({ text }) => `echo: ${text}`,
});

/** `missing` is called by the scripts but does not exist. */
export const scriptTools = { echo: echoTool, add: addTool, fail: failTool };

const OUTCOMES: readonly Outcome[] = ['completed', 'max-steps', 'doom-loop', 'aborted', 'failed', 'context-limit', 'content-filter', 'timeout', 'denied'];

/** Small enough that a stalled stream ends fast, large enough that a scripted stream (no delays) does not trip it. */
export const CHUNK_MS = 30;
/**
 * Keeps a broken run from hanging before its first chunk. Not longer than
 * CHUNK_MS: a longer one delays every stall to it (the StepWatchdog bug in
 * test/property.test.ts, "known bugs").
 */
const FIRST_CHUNK_MS = CHUNK_MS;

export interface ScriptRun {
  result: RunResult;
  /** Every event of the run, and any that came after its run-end. */
  events: AgentEvent[];
  lateEvents: AgentEvent[];
  llmCalls: number;
  finalState: unknown;
  isRunning: boolean;
  prompt: ModelMessage[];
}

/** Runs `script` on `createAgent` with the scripted model; the caller aborts and answers approvals as the script says. */
export async function runScript(script: AgentScript): Promise<ScriptRun> {
  const model = scriptedModel(script.turns);
  const agent = createAgent({
    model,
    tools: scriptTools,
    maxSteps: script.maxSteps,
    toolExecution: script.toolExecution,
    doomLoop: script.doomLoop,
    retry: { maxAttempts: script.maxAttempts, baseDelayMs: 1, maxDelayMs: 2 },
    timeout: { firstChunkMs: FIRST_CHUNK_MS, chunkMs: CHUNK_MS },
    approvalTimeoutMs: 5,
    ...(script.step === 'sdk' ? { step: streamLanguageModelCallStep } : {}),
  });
  const events: AgentEvent[] = [];
  const lateEvents: AgentEvent[] = [];
  let ended = false;
  const subscription = agent.events$.subscribe((event) => {
    (ended ? lateEvents : events).push(event);
    if (event.type === 'run-end') ended = true;
    if (events.length === script.abortAfterEvents && !ended) agent.abort('the property test aborts here');
    if (events.length === script.steerAfterEvents && !ended) agent.steer('Focus on the last result.');
    if (events.length === script.followUpAfterEvents && !ended) agent.followUp('And now summarise.');
    if (event.type === 'approval-request' && script.approvalAnswer !== 'timeout') {
      queueMicrotask(() => {
        if (!agent.pendingApprovals.includes(event.toolCallId)) return;
        if (script.approvalAnswer === 'approve') agent.approve(event.toolCallId);
        else agent.deny(event.toolCallId, 'the property test says no');
      });
    }
  });
  const prompt: ModelMessage[] = [{ role: 'user', content: 'Do the task.' }];
  const result = await agent.run(prompt);
  // Anything still in flight (a late delta, a second run-end) arrives within a few timer turns.
  await new Promise((resolve) => setTimeout(resolve, 2));
  subscription.unsubscribe();
  return {
    result,
    events,
    lateEvents,
    llmCalls: model.calls.length,
    finalState: agent.actor.getSnapshot().value,
    isRunning: agent.isRunning,
    prompt,
  };
}

function assistantText(message: ModelMessage): string {
  if (typeof message.content === 'string') return message.content;
  return message.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

/**
 * Text deltas against the history: an assistant message's text is exactly
 * the deltas of the attempt that produced it; an attempt that a `retry` event
 * says failed reported no message; an attempt that streamed text and did not
 * fail reported its message, unless it was the run's last and the run ended
 * because the call failed.
 */
function deltaProblems(events: AgentEvent[], outcome: Outcome): string[] {
  const problems: string[] = [];
  const attempts = new Map<string, { deltas: string[]; message?: string; failed: boolean }>();
  const attemptOf = (key: string) => {
    let entry = attempts.get(key);
    if (!entry) attempts.set(key, (entry = { deltas: [], failed: false }));
    return entry;
  };
  let step = 0;
  let attempt = 1;
  let last: string | undefined;
  for (const event of events) {
    if (event.type === 'start-step') {
      step = event.step;
      attempt = 1;
      last = `${step}:${attempt}`;
    } else if (event.type === 'text-delta') {
      if (event.step !== step) problems.push(`a text-delta of step ${event.step} arrived during step ${step}`);
      attempt = event.attempt;
      last = `${event.step}:${event.attempt}`;
      attemptOf(last).deltas.push(event.text);
    } else if (event.type === 'retry') {
      attemptOf(`${event.step}:${event.attempt - 1}`).failed = true;
      attempt = event.attempt;
      last = `${event.step}:${event.attempt}`;
    } else if (event.type === 'message' && event.message.role === 'assistant') {
      const key = `${step}:${attempt}`;
      const entry = attemptOf(key);
      if (entry.message !== undefined) problems.push(`attempt ${key} reported two assistant messages`);
      entry.message = assistantText(event.message);
    }
  }
  for (const [key, entry] of attempts) {
    const streamed = entry.deltas.join('');
    if (entry.failed) {
      if (entry.message !== undefined) problems.push(`attempt ${key} failed (a retry followed) but its message entered the history`);
    } else if (entry.message !== undefined) {
      if (entry.message !== streamed) problems.push(`attempt ${key} streamed ${JSON.stringify(streamed)} but its message says ${JSON.stringify(entry.message)}`);
    } else if (streamed !== '' && !(key === last && (outcome === 'failed' || outcome === 'context-limit'))) {
      problems.push(`attempt ${key} streamed ${JSON.stringify(streamed)}, did not fail, and its text is not in the history (outcome ${outcome})`);
    }
  }
  return problems;
}

/** DESIGN invariants 1–3 for one run; empty when they hold. */
export function scriptRunProblems(script: AgentScript, run: ScriptRun): string[] {
  const problems: string[] = [];
  const { result, events } = run;
  const runEnds = events.filter((event) => event.type === 'run-end');
  const lateRunEnds = run.lateEvents.filter((event) => event.type === 'run-end');
  // Invariant 1: one run-end, one outcome, back to idle, within the LLM-call budget.
  if (runEnds.length !== 1 || lateRunEnds.length > 0) problems.push(`${runEnds.length + lateRunEnds.length} run-end events`);
  if (runEnds[0] && runEnds[0].result !== result) problems.push('run() resolved with another result than its run-end');
  if (!OUTCOMES.includes(result.outcome)) problems.push(`unknown outcome ${String(result.outcome)}`);
  if (run.finalState !== 'idle' || run.isRunning) problems.push(`after the run the agent is in ${JSON.stringify(run.finalState)}, running: ${run.isRunning}`);
  const retries = events.filter((event) => event.type === 'retry').length;
  const compactions = events.filter((event) => event.type === 'compaction-start').length;
  if (run.llmCalls > script.maxSteps + retries + compactions) {
    problems.push(`${run.llmCalls} LLM calls > maxSteps ${script.maxSteps} + ${retries} retries + ${compactions} compactions`);
  }
  if (result.stepCount > script.maxSteps) problems.push(`${result.stepCount} steps > maxSteps ${script.maxSteps}`);
  if (run.lateEvents.length > 0) problems.push(`events after run-end: ${run.lateEvents.map((event) => event.type).join(', ')}`);
  // Invariant 2: every tool call answered exactly once (the AI SDK check is the caller's: it is async).
  problems.push(...toolAnswerProblems(result.messages));
  // Invariant 3: the history is what the message events reported, and streamed text is where it belongs.
  const ledger = new MessageLedger([]);
  for (const event of events) ledger.observe(event);
  problems.push(...ledger.problems(result.messages));
  problems.push(...deltaProblems(events, result.outcome));
  return problems;
}
