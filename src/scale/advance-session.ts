import { randomUUID } from 'node:crypto';
import { knownKeys, parseOptions } from '../core/options-check.js';
import type { ToolSet } from 'ai';
import type { ModelMessage } from 'ai';
import type { Observable } from 'rxjs';
import { toMessages } from '../agent.js';
import { AgentSession, sendInput, untilSession } from '../session/session-actor.js';
import type { SessionInputEvent } from '../session/session-events.js';
import type { AgentEvent } from '../core/events.js';
import { pendingApprovals, type PendingApproval } from '../machine/approval-updates.js';
import { parseAgentOptions, type AgentOptions } from '../options.js';
import type { RunResult } from '../core/result.js';
import type { SessionStore } from '../persistence/session-store.js';
import { assertSessionRequest, SessionRequestError, type SessionInput } from './session-request.js';
import { SessionNotDurableError } from './session-not-durable-error.js';
import { takeOverFromEarlierAttempt } from './session-attempts.js';
import { errorMessage } from '../core/error-message.js';
import { eventPublishing, type EventNotPublishedError } from './event-publishing.js';

export type { SessionInput } from './session-request.js';

export interface AdvanceSessionOptions<TOOLS extends ToolSet = ToolSet> {
  /** The store every worker shares; it must have leases (`pgStore`, `fileStore`). */
  store: SessionStore;
  sessionId: string;
  /** The agent's options, the same on every worker (model, tools, instructions, approval…). */
  agent: Omit<AgentOptions<TOOLS>, 'store' | 'sessionId' | 'lease' | 'messages'>;
  /** Who advances the session: this worker's name. The lease is held as `<owner>/<8 hex digits>`, one name per attempt. */
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
   * Told of each event `onEvent` did not take: it threw, its promise rejected, or it was still
   * pending `eventTimeoutMs` after the session's last boundary was in the store. The session is
   * not affected (its events are in its store); only the stream missed them. Without it, the
   * first such event of an advance is a process warning (`LOOPCHART_EVENT_NOT_PUBLISHED`).
   */
  onEventError?: (error: EventNotPublishedError, event: AgentEvent<TOOLS>) => void;
  /**
   * How long `advanceSession` waits, once the store holds the session's last boundary, for the
   * `onEvent` promises still pending: those not settled by then are reported (`onEventError`) and
   * no longer waited for, so a publisher that stops answering does not hold the turn for ever.
   * @default 30000
   */
  eventTimeoutMs?: number;
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

/**
 * Advances one session by one input, as a unit of work an engine can run anywhere and retry:
 * takes the session's lease (`LeaseHeldError` while another worker holds it), restores the
 * session, lets a run it was in the middle of go on, applies the input once (by `requestId`),
 * runs until the run ends or waits for a person, waits until the store holds that step
 * boundary, then stops the agent and releases the lease. Nothing stays in memory between
 * inputs: the next input may go to any worker.
 *
 * Inputs by state: `prompt` and `follow-up` start a run on an idle session (a follow-up sent live
 * to a run under way joins it); `approve`/`deny` answer a waiting call; `steer` redirects a run
 * (skipping the calls that wait) or starts one on an idle session; `abort` ends a run; `resume`
 * only continues. Anything else (a prompt while a run waits for approval, an abort that arrives
 * after its run ended) is a `SessionInputError` and changes nothing.
 *
 * An error other than `SessionInputError` stops the agent as a crash would (the session stays at
 * its last checkpoint for the next attempt, nothing is aborted): `isRetryableSessionError` says
 * which are worth another attempt. A step boundary the store did not take is a
 * `SessionNotDurableError`; an earlier attempt at the same session in this process is stopped
 * first and rejects with `SessionSupersededError`.
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
/** The options `advanceSession` takes. */
const advanceSessionOptionsKeys = knownKeys(['store', 'sessionId', 'agent', 'owner', 'leaseTtlMs', 'input', 'requestId', 'onEvent', 'onEventError', 'eventTimeoutMs', 'subscribeControl']);

export async function advanceSession<TOOLS extends ToolSet = ToolSet>(options: AdvanceSessionOptions<TOOLS>): Promise<AdvanceSessionResult> {
  // Only unknown options are refused here: the fields have checks of their own, whose errors name them.
  parseOptions('advanceSession', advanceSessionOptionsKeys, options);
  assertSessionRequest(options);
  if (typeof options.owner !== 'string' || options.owner === '') throw new SessionRequestError([{ path: 'owner', message: 'expected the name of this worker' }]);
  if (options.leaseTtlMs !== undefined && !(Number.isInteger(options.leaseTtlMs) && options.leaseTtlMs >= 100)) {
    throw new SessionRequestError([{ path: 'leaseTtlMs', message: 'expected a whole number of milliseconds, at least 100' }]);
  }
  if (options.eventTimeoutMs !== undefined && !(Number.isFinite(options.eventTimeoutMs) && options.eventTimeoutMs > 0)) {
    throw new SessionRequestError([{ path: 'eventTimeoutMs', message: 'expected a positive number of milliseconds' }]);
  }
  if (!options.store.leases) throw new TypeError('advanceSession needs a store with leases (pgStore or fileStore)');
  // An earlier attempt at this very input in this process (an engine's retry, or a recovered workflow
  // run a second time here) is stopped first, as a crash would stop it. Attempts at other inputs are
  // kept apart by the lease, which each attempt holds under a name of its own: a stale attempt
  // waits for the current one instead of stopping it.
  const attempt = await takeOverFromEarlierAttempt(options.store, options.sessionId, options.requestId);
  const agentOptions = parseAgentOptions({
    ...(options.agent as AgentOptions<TOOLS>),
    store: options.store,
    sessionId: options.sessionId,
    lease: { owner: `${options.owner}/${randomUUID().slice(0, 8)}`, ...(options.leaseTtlMs !== undefined ? { ttlMs: options.leaseTtlMs } : {}) },
  });
  const { host, actor: session } = new AgentSession(agentOptions, { parent: undefined, depth: 0 });
  /** Stops the session as a crash would stop it (nothing more is written, the lease is let go) and waits until it has. */
  const halt = async (error: Error): Promise<void> => {
    if (session.getSnapshot().status === 'active') session.send({ type: 'session.halt', error });
    await untilSession(session, (snapshot) => snapshot.status === 'done');
  };
  attempt.onSuperseded(halt);
  let lastResult: RunResult | undefined;
  const { onEvent } = options;
  const publishing = onEvent
    ? eventPublishing<AgentEvent<TOOLS>>({
        sessionId: options.sessionId,
        // The epoch the session's lease was acquired with: a client orders what workers said by it.
        onEvent: (event) => (host.epoch === undefined ? undefined : onEvent(event, { epoch: host.epoch })),
        onEventError: options.onEventError,
      })
    : undefined;
  const publish = (event: AgentEvent<TOOLS>) => publishing?.publish(event);
  // What the agent does once its lease may have passed to another worker is not the session's:
  // held back until the lease is confirmed, dropped once it is known lost, so no stale event
  // follows the new owner's in a stream.
  let heldBack: Array<AgentEvent<TOOLS>> | undefined;
  const subscription = (host.events$ as Observable<AgentEvent<TOOLS>>).subscribe((event) => {
    if (event.type === 'run-end') lastResult = event.result;
    if (!publishing) return;
    if (heldBack) {
      heldBack.push(event);
      return;
    }
    const status = host.leaseStatus();
    if (status === 'held') return publish(event);
    if (status === 'lost') return;
    const waiting = (heldBack = [event]);
    publishing.track(
      host.confirmLease().then((held) => {
        heldBack = undefined;
        if (held) for (const each of waiting) publish(each);
      }),
    );
  });
  let unsubscribeControl: (() => void) | undefined;
  const unlessSuperseded = <T>(promise: Promise<T>) => attempt.unlessSuperseded(promise);
  /** Resolves when the session is idle or its run waits for approval. */
  const untilQuiet = () =>
    unlessSuperseded(
      untilSession(
        session,
        (snapshot) => snapshot.matches({ holding: { live: 'idle' } }) || snapshot.matches({ holding: { live: 'awaitingApproval' } }) || !snapshot.matches({ holding: 'live' }),
      ),
    );
  try {
    const opened = await unlessSuperseded(untilSession(session, ({ context }) => context.opened || context.openError !== undefined));
    if (!opened.context.opened) throw opened.context.openError instanceof Error ? opened.context.openError : new Error(String(opened.context.openError));
    // Live control is at most once: without it (a channel that cannot connect now) inputs arrive by their durable copies.
    unsubscribeControl = await unlessSuperseded(
      Promise.resolve(
        options.subscribeControl?.((input, requestId) => {
          // The session applies it if it fits a run under way and was not applied yet; otherwise its durable copy will be.
          const event = sessionEventOf(input, requestId, true);
          if (event) sendInput(session, event);
        }),
      ).catch(() => undefined),
    );
    await untilQuiet();
    const event = sessionEventOf(options.input, options.requestId, false);
    if (!event) throw new SessionInputError(`cannot apply "${options.input.type}" to the session: the prompt is malformed`);
    const outcome = sendInput(session, event);
    if (outcome && !outcome.applied && outcome.reason.kind !== 'duplicate') throw new SessionInputError(`cannot apply "${options.input.type}" to the session: ${outcome.reason.message}`);
    const applied = outcome?.applied ?? false;
    if (applied) await untilQuiet();
    // No live input from here on (their durable copies go to whoever advances the session next),
    // and one that arrived just before may have set the run going again: wait for it to stop.
    unsubscribeControl?.();
    unsubscribeControl = undefined;
    await untilQuiet();
    await unlessSuperseded(host.settled());
    const failure = host.writeFailure;
    if (failure !== undefined) {
      // The store holds the session only up to an earlier boundary: reporting this one done would strand it there.
      throw new SessionNotDurableError(`session ${options.sessionId}: its last step boundary is not in the store (${errorMessage(failure)}); advance it again to continue from the last one that is`, {
        cause: failure,
      });
    }
    if (publishing) await unlessSuperseded(publishing.settled(options.eventTimeoutMs ?? 30_000));
    const run = host.run?.getSnapshot();
    const waiting = run ? pendingApprovals(run.context) : [];
    if (waiting.length > 0) {
      const deadline = run?.context.run?.approvalDeadline;
      return { status: 'awaiting-approval', pending: waiting, applied, ...(deadline !== undefined ? { deadline } : {}) };
    }
    return { status: 'idle', result: lastResult, applied };
  } catch (error) {
    // Stopped as a crash would stop it, not aborted: the session stays where its last checkpoint left it, for the next attempt.
    if (!(error instanceof SessionInputError)) await halt(error instanceof Error ? error : new Error(String(error)));
    throw error;
  } finally {
    unsubscribeControl?.();
    if (session.getSnapshot().status === 'active') session.send({ type: 'session.dispose' });
    await untilSession(session, (snapshot) => snapshot.status === 'done');
    subscription.unsubscribe();
    attempt.end();
  }
}

/** The input as the session chart's event; undefined for a prompt that is not a prompt (empty, or not messages). */
function sessionEventOf(input: SessionInput, requestId: string, live: boolean): SessionInputEvent | undefined {
  const message = (value: string | ModelMessage) => toMessages(value)[0]!;
  try {
    switch (input.type) {
      case 'prompt':
        return { type: 'session.prompt', messages: toMessages(input.prompt), requestId, ...(live ? { live } : {}) };
      case 'steer':
        return { type: 'session.steer', message: message(input.message), requestId, ...(live ? { live } : {}) };
      case 'follow-up':
        return { type: 'session.follow-up', message: message(input.message), requestId, ...(live ? { live } : {}) };
      case 'approve':
        return { type: 'session.approve', toolCallId: input.toolCallId, requestId };
      case 'deny':
        return { type: 'session.deny', toolCallId: input.toolCallId, ...(input.reason !== undefined ? { reason: input.reason } : {}), requestId };
      case 'abort':
        return { type: 'session.abort', ...(input.reason !== undefined ? { reason: input.reason } : {}), requestId };
      case 'resume':
        return { type: 'session.resume', requestId };
    }
  } catch (error) {
    if (error instanceof TypeError) return undefined;
    throw error;
  }
}
