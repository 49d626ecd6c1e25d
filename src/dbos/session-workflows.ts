import { DBOS } from '@dbos-inc/dbos-sdk';
import type { ToolSet } from 'ai';
import { z } from 'zod';
import { functionOption } from '../core/function-option.js';
import { parseOptions } from '../core/options-check.js';
import type { AgentEvent } from '../core/events.js';
import { SESSION_FORMAT_VERSION, type SessionStore } from '../persistence/session-store.js';
import type { RunResult } from '../core/result.js';
import { advanceSession, SessionInputError, type AdvanceSessionOptions, type AdvanceSessionResult, type SessionInput } from '../scale/advance-session.js';
import type { ControlChannel } from './pg-control-channel.js';
import { isRetryableSessionError } from '../scale/retryable-error.js';
import type { EventNotPublishedError } from '../scale/event-publishing.js';

/**
 * The DBOS application version of session workflows: the session format's, not a hash of the
 * code, so that a deploy does not strand the workflows in flight (DBOS recovers only workflows of
 * its own version). It changes when the session format does.
 */
export const SESSION_APPLICATION_VERSION = `loopchart-session-v${SESSION_FORMAT_VERSION}`;
/** The queue of session turns: partitioned by session id, one turn at a time per session. */
export const SESSION_QUEUE = 'loopchart_sessions';
/** The registered name of the turn workflow, for `DBOSClient.enqueue`. */
export const SESSION_TURN_WORKFLOW = 'loopchart.sessionTurn';
/** The `recv` topic a turn waits on for answers and other inputs. */
export const SESSION_INPUT_TOPIC = 'loopchart.input';
/**
 * The event a turn sets before its last look at its mailbox: an input sent to it from then on
 * may arrive after it has ended, so the sender starts a turn of its own for it (`sessionClient`).
 */
export const TURN_CLOSING_EVENT = 'loopchart.closing';

/** An input sent to a turn that waits: `DBOSClient.send(turnId, message, SESSION_INPUT_TOPIC)`. */
export interface TurnInput {
  input: SessionInput;
  requestId: string;
}

/** What a turn workflow returns: where the session stopped (serialisable, for `getResult`). */
export interface TurnSummary {
  status: 'idle';
  outcome: RunResult['outcome'] | undefined;
  text: string | undefined;
  /** Inputs the turn could not apply (a prompt while waiting, an unknown tool call id), with why. */
  rejected: Array<{ requestId: string; reason: string }>;
}

export interface SessionWorkflowOptions<TOOLS extends ToolSet = ToolSet> {
  store: SessionStore;
  /** The agent's options; the same on every worker. */
  agent: AdvanceSessionOptions<TOOLS>['agent'];
  /** The lease's owner name. Default: DBOS's executor ID of this process. */
  owner?: string;
  leaseTtlMs?: number;
  /** Live control (abort, steer mid-run) from other nodes; see `pgControlChannel`. */
  control?: ControlChannel;
  /** Every event of a session's agent on this worker, for streams to clients (see `loopchart/redis`). */
  onEvent?: (sessionId: string, event: AgentEvent<TOOLS>, lease: { epoch: number }) => void | Promise<unknown>;
  /** Told of each event `onEvent` did not take (it threw, rejected, or did not settle in time); see `advanceSession`'s `onEventError`. Without it, a process warning. */
  onEventError?: (sessionId: string, error: EventNotPublishedError, event: AgentEvent<TOOLS>) => void;
  /** How long a turn's step waits for `onEvent` promises once the session is durable. Default 30,000 ms; see `advanceSession`. */
  eventTimeoutMs?: number;
  /** How long a turn waits for an answer when the run has no approval deadline: a positive number of seconds. Default 7 days. */
  approvalWaitSeconds?: number;
}

/**
 * `registerSessionWorkflows`' options, checked whole when the workflow is registered: a misspelt
 * one is refused, not ignored, and the limits `advanceSession` checks on every turn are checked
 * here too, so a bad one stops the worker at its start instead of failing every turn. The agent's
 * options are `advanceSession`'s to check.
 */
const sessionWorkflowOptionsSchema = z.strictObject({
  store: z.custom<SessionStore>((value) => typeof (value as Partial<SessionStore> | null)?.append === 'function', { message: 'expected a session store' }),
  agent: z.unknown(),
  owner: z.string().min(1).optional(),
  leaseTtlMs: z.number().int().min(100, 'expected a whole number of milliseconds, at least 100').optional(),
  control: z.custom<ControlChannel>((value) => typeof (value as Partial<ControlChannel> | null)?.subscribe === 'function', { message: 'expected a control channel (pgControlChannel)' }).optional(),
  onEvent: functionOption<NonNullable<SessionWorkflowOptions['onEvent']>>().optional(),
  onEventError: functionOption<NonNullable<SessionWorkflowOptions['onEventError']>>().optional(),
  eventTimeoutMs: z.number().positive().optional(),
  // 0 would have a turn that waits for an answer wake at once, again and again.
  approvalWaitSeconds: z.number().positive().optional(),
});

/**
 * `registerSessionQueue`'s options. Checked whole, since they are given to DBOS's queue: a DBOS
 * option such as `partitionConcurrency` would otherwise pass through and undo one turn at a time
 * per session.
 */
const sessionQueueOptionsSchema = z.strictObject({
  workerConcurrency: z.number().int().positive().optional(),
  minPollingIntervalMs: z.number().positive().optional(),
});

/**
 * Registers the durable turn workflow of loopchart sessions with DBOS. Call it before
 * `DBOS.launch()`, then `registerSessionQueue()` after: a turn is one workflow that advances the
 * session with one input as a DBOS step (`advanceSession`, so a step re-run after a crash does
 * not apply the input twice), and while the run waits for approval it waits with `DBOS.recv`
 * — durably, for days, holding no lease and no agent — then advances with the answer, until the
 * session is idle. Inputs that reach the turn's mailbox meanwhile are applied in order; those
 * that do not fit are listed in the summary as rejected.
 *
 * @example
 * ```ts
 * import { DBOS } from '@dbos-inc/dbos-sdk';
 * import pg from 'pg';
 * import { dbosSystemDatabaseUrl, registerSessionWorkflows, registerSessionQueue, sessionWorkerConfig } from 'loopchart/dbos';
 * import { pgStore } from 'loopchart/postgres';
 *
 * const databaseUrl = process.env.DATABASE_URL!;
 * registerSessionWorkflows({ store: pgStore(new pg.Pool({ connectionString: databaseUrl })), agent: { model, tools } });
 * DBOS.setConfig(sessionWorkerConfig({ name: 'chat', systemDatabaseUrl: dbosSystemDatabaseUrl(databaseUrl) }));
 * await DBOS.launch();
 * await registerSessionQueue();
 * ```
 */
export function registerSessionWorkflows<TOOLS extends ToolSet = ToolSet>(options: SessionWorkflowOptions<TOOLS>): (sessionId: string, input: SessionInput, requestId: string) => Promise<TurnSummary> {
  parseOptions('registerSessionWorkflows', sessionWorkflowOptionsSchema, options);
  const advance = (sessionId: string, input: SessionInput, requestId: string): Promise<AdvanceSessionResult | { status: 'rejected'; reason: string }> =>
    DBOS.runStep(
      async () => {
        try {
          return await advanceSession<TOOLS>({
            store: options.store,
            sessionId,
            agent: options.agent,
            owner: options.owner ?? DBOS.executorID,
            input,
            requestId,
            ...(options.leaseTtlMs !== undefined ? { leaseTtlMs: options.leaseTtlMs } : {}),
            ...(options.onEvent ? { onEvent: (event: AgentEvent<TOOLS>, lease: { epoch: number }) => options.onEvent!(sessionId, event, lease) } : {}),
            ...(options.onEventError ? { onEventError: (error: EventNotPublishedError, event: AgentEvent<TOOLS>) => options.onEventError!(sessionId, error, event) } : {}),
            ...(options.eventTimeoutMs !== undefined ? { eventTimeoutMs: options.eventTimeoutMs } : {}),
            ...(options.control ? { subscribeControl: (deliver: (input: SessionInput, requestId: string) => void) => options.control!.subscribe(sessionId, deliver) } : {}),
          });
        } catch (error) {
          if (error instanceof SessionInputError) return { status: 'rejected' as const, reason: error.message };
          throw error;
        }
      },
      // Retried only for what can pass: a lease still held by a dead worker (it lapses within its TTL), a
      // cut connection, a boundary the store did not take. Anything else fails the turn at once, with its error.
      { name: 'loopchart.advanceSession', retriesAllowed: true, intervalSeconds: 0.2, backoffRate: 1.5, maxAttempts: 40, shouldRetry: isRetryableSessionError },
    );
  const now = () => DBOS.runStep(async () => Date.now(), { name: 'loopchart.now' });

  async function sessionTurn(sessionId: string, input: SessionInput, requestId: string): Promise<TurnSummary> {
    const rejected: TurnSummary['rejected'] = [];
    let last: RunResult | undefined;
    let step = await advance(sessionId, input, requestId);
    let waits = 0;
    for (;;) {
      if (step.status === 'rejected') {
        rejected.push({ requestId, reason: step.reason });
        step = await advance(sessionId, { type: 'resume' }, `${requestId}:resume`);
        continue;
      }
      if (step.status === 'idle' && step.result) last = step.result;
      let timeoutSeconds = 0;
      // Idle: this look at the mailbox may be the last; whoever sends after it starts a turn of its own.
      if (step.status === 'idle') await DBOS.setEvent(TURN_CLOSING_EVENT, true);
      if (step.status === 'awaiting-approval') {
        // The machine denies unanswered calls at its own deadline: wake up for it then.
        timeoutSeconds = step.deadline !== undefined ? Math.max(0, (step.deadline - (await now())) / 1000) + 1 : (options.approvalWaitSeconds ?? 7 * 24 * 3600);
      }
      const message = await DBOS.recv<TurnInput>(SESSION_INPUT_TOPIC, timeoutSeconds);
      if (message === null) {
        if (step.status === 'idle') break;
        waits++;
        step = await advance(sessionId, { type: 'resume' }, `${requestId}:wait-${waits}`);
        continue;
      }
      // Not closing after all: an answer to what this input leads to must reach this turn's mailbox.
      if (step.status === 'idle') await DBOS.setEvent(TURN_CLOSING_EVENT, false);
      step = await advance(sessionId, message.input, message.requestId);
      if (step.status === 'rejected') {
        rejected.push({ requestId: message.requestId, reason: step.reason });
        step = await advance(sessionId, { type: 'resume' }, `${message.requestId}:resume`);
      }
    }
    return { status: 'idle', outcome: last?.outcome, text: last?.text, rejected };
  }

  return DBOS.registerWorkflow(sessionTurn, { name: SESSION_TURN_WORKFLOW });
}

/**
 * Registers the session queue (after `DBOS.launch()`): one turn at a time per session, across all
 * workers. `minPollingIntervalMs` (DBOS's default 1,000 ms) bounds how soon a worker picks up a
 * new turn; `workerConcurrency` caps the turns one worker runs at once. Any other option is refused
 * (a `TypeError`): DBOS's own queue options would undo one turn at a time per session.
 */
export function registerSessionQueue(options: { workerConcurrency?: number; minPollingIntervalMs?: number } = {}) {
  const { workerConcurrency, minPollingIntervalMs } = parseOptions('registerSessionQueue', sessionQueueOptionsSchema, options);
  return DBOS.registerQueue(SESSION_QUEUE, {
    partitionConcurrency: 1,
    ...(workerConcurrency !== undefined ? { workerConcurrency } : {}),
    ...(minPollingIntervalMs !== undefined ? { minPollingIntervalMs } : {}),
  });
}
