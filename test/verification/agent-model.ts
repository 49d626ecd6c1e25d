import type { AssistantModelMessage, FinishReason, ModelMessage } from 'ai';
import type { SnapshotFrom } from 'xstate';
import type { ApprovalVerdict } from '../../src/actors/approval-actor.js';
import type { CompactionActorOutput } from '../../src/actors/compaction-actor.js';
import type { StepToolCall } from '../../src/core/step.js';
import type { ToolCallOutput } from '../../src/actors/tool-call.js';
import type { CompactionConfig } from '../../src/core/compaction-config.js';
import { summaryMessage } from '../../src/context/summary.js';
import { estimateTokens } from '../../src/context/token-estimate.js';
import { approvalInput, type AgentMachineEvent } from '../../src/machine/agent-setup.js';
import { stepCalls } from '../../src/machine/approval-updates.js';
import type { AgentContext, AgentMachineInput, RunState } from '../../src/machine/context.js';
import { toolCallFingerprint } from '../../src/resilience/doom-loop.js';
import { isOverContextBudget } from '../../src/machine/guards.js';
import type { RunError } from '../../src/core/result.js';
import type { StubbedAgentMachine } from './stub-machine.js';
import { usageFrom } from '../../src/core/usage.js';

/**
 * The test model of the agent machine: the events its environment (the
 * caller, the invoked actors, the timers) can send in each state, and an
 * abstraction of its snapshot (state value plus the bits of context the
 * guards read) that keeps a graph traversal finite.
 */

export type AgentSnapshot = SnapshotFrom<StubbedAgentMachine>;

const tinyRetry = { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1 };
const noRetry = { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1 };
const HOUR = 3_600_000;

/** A context window small enough that one big provider count puts the context over budget (800 tokens). */
export const smallWindow: CompactionConfig = {
  contextWindow: 1000,
  reserveTokens: 200,
  keepRecentTokens: 100,
  protectToolOutputTokens: 50,
  maxCompactions: 1,
};

/**
 * Machine configurations that, between them, make every guard reachable:
 * retries and a run deadline, doom loops that stop and doom loops that ask,
 * an approval policy with `onDeny: 'stop'` and sequential tools, compaction
 * with a small window; and one with nearly everything on at once, for how
 * the features interact.
 */
export const modelConfigs = {
  core: {
    maxSteps: 2,
    doomLoopThreshold: 2,
    doomLoopAction: 'stop',
    toolExecution: 'parallel',
    retry: tinyRetry,
    timeouts: { totalMs: HOUR },
  },
  approvals: {
    maxSteps: 2,
    doomLoopThreshold: 0,
    toolExecution: 'sequential',
    hasApprovalPolicy: true,
    onDeny: 'stop',
    approvalTimeoutMs: HOUR,
    retry: noRetry,
  },
  doomAsk: {
    maxSteps: 3,
    doomLoopThreshold: 2,
    doomLoopAction: 'ask',
    toolExecution: 'parallel',
    onDeny: 'continue',
    retry: noRetry,
  },
  compaction: {
    maxSteps: 2,
    doomLoopThreshold: 0,
    toolExecution: 'sequential',
    compaction: smallWindow,
    retry: noRetry,
  },
  interplay: {
    maxSteps: 2,
    doomLoopThreshold: 2,
    doomLoopAction: 'ask',
    toolExecution: 'parallel',
    hasApprovalPolicy: true,
    onDeny: 'continue',
    approvalTimeoutMs: HOUR,
    compaction: smallWindow,
    retry: tinyRetry,
    timeouts: { totalMs: HOUR },
  },
  stopWhen: {
    maxSteps: 3,
    doomLoopThreshold: 0,
    toolExecution: 'parallel',
    hasStopConditions: true,
    retry: noRetry,
  },
} satisfies Record<string, AgentMachineInput['config']>;

export type ModelConfigName = keyof typeof modelConfigs;

export const PROMPT: ModelMessage = { role: 'user', content: 'go' };

const usage = (inputTokens: number, outputTokens: number) => usageFrom({ inputTokens, outputTokens });
/** What the provider counts for a normal call: well under the small window's budget. */
export const SMALL_USAGE = usage(10, 5);
/** A provider count over the small window's budget. */
export const BIG_USAGE = usage(5000, 5);

type CallSpec = Pick<StepToolCall, 'toolName' | 'input'>;

/** The same call every step: two in a row are a doom loop at threshold 2. */
export const REPEATED: CallSpec = { toolName: 'echo', input: { x: 1 } };

/** Two calls whose input changes every step. */
function pair(run: RunState): CallSpec[] {
  return [
    { toolName: 'echo', input: { step: run.steps } },
    { toolName: 'lookup', input: { step: run.steps } },
  ];
}

/** FNV-1a, as 8 hex digits. */
function hash(text: string): string {
  let value = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) value = Math.imul(value ^ text.charCodeAt(index), 0x01000193) >>> 0;
  return value.toString(16).padStart(8, '0');
}

/**
 * Tool-call ids unique within a history and the same on every replay: named
 * after the history they answer (its length, and a hash, since a summarised
 * compaction shrinks it).
 */
function toolCalls(context: AgentContext, calls: CallSpec[]): StepToolCall[] {
  const history = `${context.messages.length}-${hash(JSON.stringify(context.messages))}`;
  return calls.map((call, index) => ({ toolCallId: `call-${history}-${index}`, ...call }));
}

function assistantMessage(text: string, calls: StepToolCall[]): AssistantModelMessage | undefined {
  const content: Exclude<AssistantModelMessage['content'], string> = [
    ...(text ? [{ type: 'text' as const, text }] : []),
    ...calls.map((call) => ({ type: 'tool-call' as const, toolCallId: call.toolCallId, toolName: call.toolName, input: call.input })),
  ];
  return content.length > 0 ? { role: 'assistant', content } : undefined;
}

/** `llm.finish` for calls with known ids; the message is what the llm actor would build from the same parts. */
export function finishWith(
  finishReason: FinishReason,
  calls: StepToolCall[],
  { text = 'ok', tokens = SMALL_USAGE }: { text?: string; tokens?: ReturnType<typeof usage> } = {},
): AgentMachineEvent {
  return { type: 'llm.finish', finishReason, usage: tokens, text, toolCalls: calls, message: assistantMessage(text, calls) };
}

function finishEvent(context: AgentContext, finishReason: FinishReason, calls: CallSpec[], options: Parameters<typeof finishWith>[2] = {}) {
  return finishWith(finishReason, toolCalls(context, calls), options);
}

function abortedEvent(context: AgentContext, text: string, calls: CallSpec[]): AgentMachineEvent {
  const stepToolCalls = toolCalls(context, calls);
  return { type: 'llm.aborted', text, toolCalls: stepToolCalls, message: assistantMessage(text, stepToolCalls) };
}

export const llmErrors: Record<'rateLimit' | 'overflow' | 'auth', RunError> = {
  rateLimit: { kind: 'rate-limit', message: 'Too many requests', status: 429 },
  overflow: { kind: 'context-overflow', message: 'The prompt is too long', status: 400 },
  auth: { kind: 'auth', message: 'Invalid API key', status: 401 },
};

function llmEvents(context: AgentContext, run: RunState, streaming: boolean): AgentMachineEvent[] {
  const errors = Object.values(llmErrors).map((error): AgentMachineEvent => ({ type: 'llm.error', error }));
  if (!streaming) {
    return [{ type: 'llm.firstChunk' }, errors[0]!, errors[2]!, abortedEvent(context, '', [])];
  }
  const overBudget = context.config.compaction !== false ? [finishEvent(context, 'tool-calls', [REPEATED], { tokens: BIG_USAGE })] : [];
  return [
    finishEvent(context, 'stop', [], { text: 'done' }),
    finishEvent(context, 'stop', [REPEATED]),
    finishEvent(context, 'tool-calls', [REPEATED], { text: '' }),
    finishEvent(context, 'tool-calls', pair(run), { text: '' }),
    finishEvent(context, 'tool-calls', [], { text: '' }),
    finishEvent(context, 'length', []),
    finishEvent(context, 'length', [REPEATED]),
    finishEvent(context, 'content-filter', []),
    finishEvent(context, 'error', []),
    finishEvent(context, 'interrupted', []),
    finishEvent(context, 'other', []),
    ...overBudget,
    ...errors,
    abortedEvent(context, 'partial', []),
    abortedEvent(context, 'partial', [REPEATED]),
  ];
}

/** What the approval actor could answer: the policy's verdicts, with doom-loop calls asked about unless denied. */
function approvalEvents(context: AgentContext, run: RunState): AgentMachineEvent[] {
  const calls = stepCalls(run);
  const doomFingerprint = approvalInput(context).doomLoopFingerprint;
  const policies: Array<'allow' | 'ask' | 'deny-first'> = context.config.hasApprovalPolicy ? ['allow', 'ask', 'deny-first'] : ['allow'];
  const seen = new Set<string>();
  const events: AgentMachineEvent[] = [];
  for (const policy of policies) {
    const verdicts = calls.map((call, index): ApprovalVerdict => {
      const decision = policy === 'ask' ? 'ask' : policy === 'deny-first' && index === 0 ? 'deny' : 'allow';
      if (decision !== 'deny' && doomFingerprint !== undefined && toolCallFingerprint(call) === doomFingerprint) {
        return { decision: 'ask', reason: 'doom-loop' };
      }
      return { decision, reason: 'policy' };
    });
    const key = JSON.stringify(verdicts);
    if (seen.has(key)) continue;
    seen.add(key);
    events.push({ type: 'xstate.done.actor.approval', output: verdicts });
  }
  return events;
}

function awaitingApprovalEvents(run: RunState): AgentMachineEvent[] {
  const calls = stepCalls(run);
  const events: AgentMachineEvent[] = [];
  (run.approvals ?? []).forEach((approval, index) => {
    const call = calls[index];
    if (!call || approval.decision !== 'ask' || approval.answer !== undefined) return;
    events.push({ type: 'agent.approve', toolCallId: call.toolCallId }, { type: 'agent.deny', toolCallId: call.toolCallId, reason: 'not now' });
  });
  events.push({ type: 'approval.expired' });
  return events;
}

/** The tool runner's answer to call `index` of step `step`. */
export function toolDoneEvent(step: number, index: number, call: StepToolCall): AgentMachineEvent {
  const output: ToolCallOutput = {
    index,
    answer: { toolCallId: call.toolCallId, toolName: call.toolName, output: { type: 'text', value: `result of ${call.toolCallId}` } },
    output: `result of ${call.toolCallId}`,
    isError: false,
    durationMs: 1,
  };
  return { type: 'tool.answer', step, output };
}

function toolEvents(run: RunState): AgentMachineEvent[] {
  const running = run.answers.flatMap((answer, index) => (index < run.nextCall && answer === null ? [index] : []));
  const events = running.map((index) => toolDoneEvent(run.steps, index, run.calls[index]!));
  if (running.length > 0) events.push({ type: 'xstate.error.actor.tools', error: new Error('segfault') });
  return events;
}

function compactionEvents(context: AgentContext, run: RunState): AgentMachineEvent[] {
  const events: AgentMachineEvent[] = [];
  if (run.compaction?.reason === 'threshold') {
    const pruned: CompactionActorOutput = { kind: 'pruned', prunedToolCallIds: toolResultIds([...context.messages]), tokensAfter: 700 };
    events.push({ type: 'xstate.done.actor.compaction', output: pruned });
  }
  const cut = context.messages.findLastIndex((message) => message.role === 'user');
  if (cut > 0) {
    const messages = [summaryMessage('What happened so far.'), ...context.messages.slice(cut)];
    const summarised: CompactionActorOutput = { kind: 'summarised', messages, summarisedMessages: cut, tokensAfter: estimateTokens(messages) };
    events.push({ type: 'xstate.done.actor.compaction', output: summarised });
  }
  events.push({ type: 'xstate.error.actor.compaction', error: new Error('the summariser failed') });
  return events;
}

function toolResultIds(messages: ModelMessage[]): string[] {
  return messages.flatMap((message) =>
    message.role === 'tool' ? message.content.flatMap((part) => (part.type === 'tool-result' ? [part.toolCallId] : [])) : [],
  );
}

/** States where a queued message changes what happens next: at the start, while the model streams, while tools run. */
function acceptsQueuedMessages(snapshot: AgentSnapshot): boolean {
  return snapshot.matches('idle') || snapshot.matches({ running: { llm: 'streaming' } }) || snapshot.matches({ running: 'toolExec' });
}

/** The events the environment can send in `snapshot`. */
export function modelEvents(snapshot: AgentSnapshot): AgentMachineEvent[] {
  const context = snapshot.context;
  const run = context.run;
  const events: AgentMachineEvent[] = [];
  if (snapshot.matches('idle') || run === undefined) {
    events.push({ type: 'agent.prompt', messages: [PROMPT] });
  } else {
    if (snapshot.matches({ running: 'preparing' })) {
      events.push(
        { type: 'prompt.prepared', messages: run.prompt ?? [] },
        { type: 'prompt.failed', error: { kind: 'invalid-request', message: 'transformPrompt failed: no such file' } },
      );
    }
    if (snapshot.matches({ running: { llm: 'calling' } })) events.push(...llmEvents(context, run, false));
    if (snapshot.matches({ running: { llm: 'streaming' } })) events.push(...llmEvents(context, run, true));
    if (snapshot.matches({ running: 'retrying' })) events.push({ type: 'retry.due' });
    if (snapshot.matches({ running: 'approving' })) events.push(...approvalEvents(context, run));
    if (snapshot.matches({ running: 'awaitingApproval' })) events.push(...awaitingApprovalEvents(run));
    if (snapshot.matches({ running: 'toolExec' })) events.push(...toolEvents(run));
    if (snapshot.matches({ running: 'compacting' })) events.push(...compactionEvents(context, run));
    if (snapshot.matches({ running: 'checkingStop' })) {
      events.push(
        { type: 'xstate.done.actor.stopCondition', output: true },
        { type: 'xstate.done.actor.stopCondition', output: false },
        { type: 'xstate.error.actor.stopCondition', error: new Error('the budget service is down') },
      );
    }
    const stops = run.stop?.requests ?? 0;
    if (stops < 2) {
      events.push({ type: 'agent.abort', reason: 'user pressed Ctrl-C' });
      if (context.config.timeouts.totalMs !== undefined) events.push({ type: 'run.deadline' });
    }
    if (stops === 0) events.push({ type: 'session.writeFailed', message: 'writing the session failed: ENOSPC' });
  }
  if (acceptsQueuedMessages(snapshot)) {
    if (context.queues.steering.length === 0) events.push({ type: 'agent.steer', message: { role: 'user', content: 'steer: look elsewhere' } });
    if (context.queues.followUps.length === 0) events.push({ type: 'agent.followUp', message: { role: 'user', content: 'and then?' } });
  }
  return events;
}

function stepKey(run: RunState): string {
  const step = run.step;
  if (step === undefined) return '';
  if (step.status === 'finished') return `${step.finishReason}:${step.toolCalls.length}`;
  return step.status === 'failed' ? `failed:${step.error.kind}` : 'aborted';
}

/**
 * The abstract state: the state value plus what the guards read (step counts,
 * the last step's outcome, doom-loop streaks, pending calls and approvals,
 * compactions, the context budget, the queues). The history itself is left
 * out, so the traversal stays finite.
 */
export function abstractKey(snapshot: AgentSnapshot): string {
  const context = snapshot.context;
  const run = context.run;
  const parts: Array<string | number> = [
    JSON.stringify(snapshot.value),
    isOverContextBudget(context) ? 'over-budget' : 'in-budget',
    `q${context.queues.steering.length}${context.queues.followUps.length}`,
  ];
  if (run) {
    parts.push(
      `s${run.steps}a${run.attempt}c${run.compactions}${run.compaction?.reason ?? ''}`,
      run.stop ? `${run.stop.outcome}${run.stop.requests}` : '',
      stepKey(run),
      `doom${Math.max(0, ...Object.values(run.doomStreaks))}`,
      `${run.answers.map((answer) => (answer === null ? '.' : 'x')).join('')}/${run.nextCall}`,
      (run.approvals ?? []).map((approval) => `${approval.decision}:${approval.reason}:${approval.answer ?? ''}`).join(','),
    );
  }
  return parts.join('|');
}
