import type { ModelMessage, ToolSet } from 'ai';
import { z } from 'zod';
import { AgentBusyError, createAgent, sessionControlOf, type Agent, type Prompt } from '../agent.js';
import type { AgentEvent } from '../events.js';
import { pendingApprovals, type PendingApproval } from '../machines/approval-updates.js';
import type { AgentOptions } from '../options.js';
import type { RunResult } from '../result.js';
import type { SessionStore } from '../persistence/session-store.js';

/** One thing that moves a session on: what a person or the app sends. */
export type SessionInput =
  | { type: 'prompt'; prompt: Prompt }
  | { type: 'approve'; toolCallId: string }
  | { type: 'deny'; toolCallId: string; reason?: string }
  | { type: 'steer'; message: string | ModelMessage }
  | { type: 'follow-up'; message: string | ModelMessage }
  | { type: 'abort'; reason?: string }
  /** Nothing new: continue a run the session was in the middle of (after a worker died), if any. */
  | { type: 'resume' };

export interface AdvanceSessionOptions<TOOLS extends ToolSet = ToolSet> {
  /** The store every worker shares; it must have leases (`pgStore`, `fileStore`). */
  store: SessionStore;
  sessionId: string;
  /** The agent's options, the same on every worker (model, tools, instructions, approval…). */
  agent: Omit<AgentOptions<TOOLS>, 'store' | 'sessionId' | 'lease' | 'messages'>;
  /** Who advances the session: this worker's name. */
  owner: string;
  /** The lease's length without renewal; it is renewed while the session advances. Default 30,000 ms. */
  leaseTtlMs?: number;
  input: SessionInput;
  /**
   * The input's id, unique per input: stored with the session by the checkpoint that first
   * reflects it, so an engine that retries this call (a step re-run after a crash) never applies
   * the input twice — the retry only continues the session.
   */
  requestId: string;
  /**
   * Every event of the agent while it advances the session, with the epoch of the lease it holds
   * (for streams to clients). When it returns a promise (a publish to Redis), `advanceSession`
   * waits for those still pending before it returns, so a stream holds every event up to the
   * boundary the store holds.
   */
  onEvent?: (event: AgentEvent<TOOLS>, lease: { epoch: number }) => void | Promise<unknown>;
  /**
   * Inputs that arrive while the session advances (an abort, a steer or an approval sent from
   * another node): called once the session is open with a `deliver` function, returns an
   * unsubscribe. A delivered input is applied at once if it fits the session's state and its
   * request id was not applied yet, and ignored otherwise (its durable copy, if any, is applied
   * by whoever advances the session next). When it returns a promise (a channel that must first
   * connect), the input is applied only once it resolves, so nothing sent while the run works is missed.
   */
  subscribeControl?: (deliver: (input: SessionInput, requestId: string) => void) => (() => void) | Promise<() => void>;
}

/** Where a session stopped: waiting for a person's answer, or idle (the last run's result, if one ran). */
export type AdvanceSessionResult =
  | { status: 'awaiting-approval'; pending: PendingApproval[]; deadline?: number; applied: boolean }
  | { status: 'idle'; result: RunResult | undefined; applied: boolean };

/** The input cannot be applied in the state the session is in. */
export class SessionInputError extends Error {
  override readonly name = 'SessionInputError';
}

const messageSchema = z.union([z.string().min(1), z.looseObject({ role: z.string() })]);
const inputSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('prompt'), prompt: z.union([messageSchema, z.array(z.looseObject({ role: z.string() })).min(1)]) }),
  z.object({ type: z.literal('approve'), toolCallId: z.string().min(1) }),
  z.object({ type: z.literal('deny'), toolCallId: z.string().min(1), reason: z.string().optional() }),
  z.object({ type: z.literal('steer'), message: messageSchema }),
  z.object({ type: z.literal('follow-up'), message: messageSchema }),
  z.object({ type: z.literal('abort'), reason: z.string().optional() }),
  z.object({ type: z.literal('resume') }),
]);
const optionsSchema = z.object({
  sessionId: z.string().min(1),
  owner: z.string().min(1),
  requestId: z.string().min(1).max(200),
  leaseTtlMs: z.number().int().min(100).optional(),
  input: inputSchema,
});

/**
 * Advances one session by one input, as a unit of work an engine can run anywhere and retry:
 * takes the session's lease (`LeaseHeldError` while another worker holds it), restores the
 * session, lets a run it was in the middle of go on, applies the input once (by `requestId`),
 * runs until the run ends or waits for a person, waits until the store holds that step
 * boundary, then stops the agent and releases the lease. Nothing stays in memory between
 * inputs: the next input may go to any worker.
 *
 * Inputs by state: `prompt` and `follow-up` start a run on an idle session; `approve`/`deny`
 * answer a waiting call; `steer` redirects a waiting run (skipping the calls that wait) or starts
 * a run on an idle session; `abort` ends a waiting run; `resume` only continues. Anything else
 * (a prompt while a run waits for approval, say) is a `SessionInputError` and changes nothing.
 *
 * @example
 * ```ts
 * const step = await advanceSession({
 *   store, sessionId: 'chat-42', owner: 'worker-1', agent: { model, tools },
 *   input: { type: 'prompt', prompt: 'Delete the build folder' }, requestId: 'msg-7',
 * });
 * if (step.status === 'awaiting-approval') notify(step.pending);
 * ```
 */
export async function advanceSession<TOOLS extends ToolSet = ToolSet>(options: AdvanceSessionOptions<TOOLS>): Promise<AdvanceSessionResult> {
  optionsSchema.parse({
    sessionId: options.sessionId,
    owner: options.owner,
    requestId: options.requestId,
    leaseTtlMs: options.leaseTtlMs,
    input: options.input,
  });
  if (!options.store.leases) throw new TypeError('advanceSession needs a store with leases (pgStore or fileStore)');
  const agent = createAgent<TOOLS>({
    ...(options.agent as AgentOptions<TOOLS>),
    store: options.store,
    sessionId: options.sessionId,
    lease: { owner: options.owner, ...(options.leaseTtlMs !== undefined ? { ttlMs: options.leaseTtlMs } : {}) },
  });
  let lastResult: RunResult | undefined;
  const control = sessionControlOf(agent);
  const publishing = new Set<Promise<unknown>>();
  const subscription = agent.events$.subscribe((event) => {
    if (event.type === 'run-end') lastResult = event.result;
    const published = options.onEvent?.(event, { epoch: control.epoch ?? 0 });
    if (published instanceof Promise) {
      const settled = published.catch(() => undefined).finally(() => publishing.delete(settled));
      publishing.add(settled);
    }
  });
  let unsubscribeControl: (() => void) | undefined;
  try {
    await agent.ready();
    unsubscribeControl = await options.subscribeControl?.((input, requestId) => {
      if (input.type === 'prompt' || !agent.isRunning || control.hasApplied(requestId)) return;
      try {
        apply(agent, input, () => control.noteRequest(requestId))?.catch(() => undefined);
      } catch {
        // Does not fit the state the session is in now: left to its durable copy.
      }
    });
    await untilWaitingOrIdle(agent);
    const applied = !control.hasApplied(options.requestId);
    if (applied) {
      const started = apply(agent, options.input, () => control.noteRequest(options.requestId));
      started?.catch(() => undefined);
      await untilWaitingOrIdle(agent);
    }
    // No live input from here on (their durable copies go to whoever advances the session next),
    // and one that arrived just before may have set the run going again: wait for it to stop.
    unsubscribeControl?.();
    unsubscribeControl = undefined;
    await untilWaitingOrIdle(agent);
    await agent.settled();
    await Promise.all(publishing);
    const waiting = pendingApprovals(agent.actor.getSnapshot().context);
    if (waiting.length > 0) {
      const deadline = agent.actor.getSnapshot().context.run?.approvalDeadline;
      return { status: 'awaiting-approval', pending: waiting, applied, ...(deadline !== undefined ? { deadline } : {}) };
    }
    return { status: 'idle', result: lastResult, applied };
  } finally {
    unsubscribeControl?.();
    await agent.dispose();
    subscription.unsubscribe();
  }
}

/** Applies the input (after `note`, so the run's first checkpoint records its id); a run's promise when it starts one. */
function apply(agent: Agent<ToolSet>, input: SessionInput, note: () => void): Promise<RunResult> | undefined {
  const waiting = agent.pendingApprovals;
  const refuse = (why: string): never => {
    throw new SessionInputError(`cannot apply "${input.type}" to the session: ${why}`);
  };
  switch (input.type) {
    case 'resume':
      return undefined;
    case 'prompt':
    case 'follow-up':
      if (waiting.length > 0) refuse(`its run waits for approval of ${waiting.join(', ')}: answer or abort it first`);
      note();
      return runOrRefuse(agent, input.type === 'prompt' ? input.prompt : input.message);
    case 'steer':
      note();
      if (waiting.length > 0) {
        agent.steer(input.message);
        return undefined;
      }
      return runOrRefuse(agent, input.message);
    case 'approve':
    case 'deny':
      if (!waiting.includes(input.toolCallId)) {
        refuse(`tool call "${input.toolCallId}" is not waiting for approval (${waiting.length > 0 ? `waiting: ${waiting.join(', ')}` : 'none is'})`);
      }
      note();
      if (input.type === 'approve') agent.approve(input.toolCallId);
      else agent.deny(input.toolCallId, input.reason);
      return undefined;
    case 'abort':
      if (!agent.isRunning) return undefined;
      note();
      agent.abort(input.reason);
      return undefined;
  }
}

function runOrRefuse(agent: Agent<ToolSet>, prompt: Prompt): Promise<RunResult> {
  if (agent.isRunning) throw new AgentBusyError();
  return agent.run(prompt);
}

/** Resolves when the agent is idle or its run waits for approval. */
function untilWaitingOrIdle(agent: Agent<ToolSet>): Promise<void> {
  const quiet = () => !agent.isRunning || agent.pendingApprovals.length > 0;
  if (quiet()) return Promise.resolve();
  return new Promise((resolve) => {
    const subscription = agent.events$.subscribe(() => {
      if (!quiet()) return;
      subscription.unsubscribe();
      resolve();
    });
  });
}
