import type { DBOSClient, WorkflowHandle } from '@dbos-inc/dbos-sdk';
import { z } from 'zod';
import { functionOption } from '../core/function-option.js';
import { parseOptions } from '../core/options-check.js';
import { answerWithin } from '../core/answer-within.js';
import { errorMessage } from '../core/error-message.js';
import { reportToAppOrWarnOnce } from '../core/warn-once.js';
import { assertSessionId } from '../persistence/session-id.js';
import { StoreTimeoutError } from '../persistence/store-timeout-error.js';
import { assertSessionRequest, type SessionInput } from '../scale/session-request.js';
import type { ControlChannel } from './pg-control-channel.js';
import { SESSION_APPLICATION_VERSION, SESSION_INPUT_TOPIC, SESSION_QUEUE, SESSION_TURN_WORKFLOW, TURN_CLOSING_EVENT, type TurnInput, type TurnSummary } from './session-workflows.js';

/** The workflow id of the turn an input starts: the same input (request id) never starts two. */
export function turnWorkflowId(sessionId: string, requestId: string): string {
  return `${turnIdPrefix(sessionId)}${requestId}`;
}

/** What every turn id of the session starts with, and no other session's: a session id holds no `:`. */
function turnIdPrefix(sessionId: string): string {
  return `loopchart:${sessionId}:`;
}

/**
 * DBOS matches `workflow_id_prefix` with SQL `LIKE`, where `_` and `%` match any character and
 * a backslash escapes (Postgres's default escape character): each is escaped so the prefix is literal.
 */
function likePrefix(prefix: string): string {
  return prefix.replace(/[\\%_]/g, (character) => `\\${character}`);
}

export interface SessionClient {
  /**
   * Sends an input to a session from any node. A prompt (or follow-up) starts a turn on the
   * session's queue, after the turns before it; an answer, a steer or an abort goes to the turn in
   * progress — durably to its mailbox, and live (`control`) to the worker running it — or starts
   * a turn when none is in progress. Resolves with the id of the turn that takes the input.
   * Rejects with a `StoreTimeoutError` when the system database has not answered within the
   * client's `timeoutMs`: the input may still arrive, and sending it again with the same
   * `requestId` applies it once.
   */
  send(sessionId: string, input: SessionInput, requestId: string): Promise<string>;
  /** The turn that is in progress (running, waiting for a person, or recovered and waiting for a worker), if any. */
  activeTurn(sessionId: string): Promise<string | undefined>;
  /** A turn's handle, to wait for its summary. */
  turn(workflowId: string): WorkflowHandle<TurnSummary>;
}

/**
 * Controls sessions from a web node that runs no agent: a `DBOSClient` on the workers' system
 * database (and optionally the live control channel).
 *
 * @example
 * ```ts
 * const sessions = sessionClient(await DBOSClient.create({ systemDatabaseUrl }));
 * const turn = await sessions.send('chat-42', { type: 'prompt', prompt: 'hello' }, 'msg-1');
 * console.log(await sessions.turn(turn).getResult());
 * ```
 */
export interface SessionClientOptions {
  /** Live control: an input for a turn in progress also reaches the worker running it at once. */
  control?: ControlChannel;
  /**
   * How long `send` and `activeTurn` wait for the system database: past it they reject with a
   * `StoreTimeoutError` (a paused database or a dropped route would otherwise hold a web request
   * for ever).
   * @default 30000
   */
  timeoutMs?: number;
  /**
   * Hears of each input whose live publish on `control` failed or did not answer within a tenth of
   * `timeoutMs`. The input is in the turn's mailbox already, so it still arrives (at the turn's next
   * look: a step boundary, not at once) and `send` resolves. Without it, the first such failure is a
   * `LOOPCHART_CONTROL_NOT_PUBLISHED` process warning.
   */
  onControlError?: (error: unknown, sessionId: string, requestId: string) => void;
}

/** The `code` of the process warning of a session client without `onControlError` whose live publish failed. */
export const CONTROL_NOT_PUBLISHED_WARNING = 'LOOPCHART_CONTROL_NOT_PUBLISHED';

/** `sessionClient`'s options, checked whole: a misspelt one is refused, not ignored. `timeoutMs` is checked by its own rule, whose message names it. */
const sessionClientOptionsSchema = z.strictObject({
  control: z.custom<ControlChannel>((value) => typeof (value as Partial<ControlChannel> | null)?.publish === 'function', { message: 'expected a control channel (pgControlChannel)' }).optional(),
  timeoutMs: z.unknown().optional(),
  onControlError: functionOption<NonNullable<SessionClientOptions['onControlError']>>().optional(),
});

export function sessionClient(client: DBOSClient, options: SessionClientOptions = {}): SessionClient {
  parseOptions('sessionClient', sessionClientOptionsSchema, options);
  const timeoutMs = options.timeoutMs ?? 30_000;
  if (!(Number.isFinite(timeoutMs) && timeoutMs > 0)) throw new RangeError(`sessionClient: timeoutMs must be a positive number of ms, not ${timeoutMs}`);
  const liveWithinMs = timeoutMs / 10;
  const onControlError = reportToAppOrWarnOnce(
    options.onControlError,
    CONTROL_NOT_PUBLISHED_WARNING,
    (error: unknown, sessionId: string) =>
      `sessionClient: an input for session ${sessionId} was not published live (${errorMessage(error)}); it is in the turn's mailbox and arrives at the turn's next step boundary. Later failures of this client are not warned of: pass onControlError to sessionClient to hear of each.`,
  );
  /** The live publish: reported, never failing `send` (the durable send is done), and not waited for past `liveWithinMs`. */
  const publishLive = async (control: ControlChannel, sessionId: string, input: SessionInput, requestId: string) => {
    try {
      await answerWithin(control.publish(sessionId, input, requestId), liveWithinMs, () => new StoreTimeoutError(`the control channel did not answer within ${liveWithinMs} ms`));
    } catch (error) {
      onControlError(error, sessionId, requestId);
    }
  };
  const bounded = <T>(what: string, work: Promise<T>): Promise<T> =>
    answerWithin(work, timeoutMs, () => new StoreTimeoutError(`sessionClient.${what}: the system database did not answer within ${timeoutMs} ms (timeoutMs)`));
  const enqueue = async (sessionId: string, input: SessionInput, requestId: string) => {
    const workflowID = turnWorkflowId(sessionId, requestId);
    await client.enqueue(
      { workflowName: SESSION_TURN_WORKFLOW, queueName: SESSION_QUEUE, workflowID, appVersion: SESSION_APPLICATION_VERSION, queuePartitionKey: sessionId },
      sessionId,
      input,
      requestId,
    );
    return workflowID;
  };
  // A turn a worker runs is PENDING; one recovered from a dead or stopped worker is ENQUEUED until
  // another takes it. Both are the session's active turn: an input sent to it waits in its mailbox.
  const activeTurn = async (sessionId: string) => {
    assertSessionId(sessionId);
    const prefix = turnIdPrefix(sessionId);
    const pending = await client.listWorkflows({
      workflow_id_prefix: likePrefix(prefix),
      status: ['PENDING', 'ENQUEUED'],
      workflowName: SESSION_TURN_WORKFLOW,
      sortDesc: false,
      limit: 1,
    });
    const turn = pending[0]?.workflowID;
    // The escaped prefix is exact; this keeps it so should a version of DBOS match differently.
    if (turn !== undefined && !turn.startsWith(prefix)) throw new Error(`DBOS listed turn ${turn} for the prefix ${prefix}: refusing to route input to another session`);
    return turn;
  };
  const send = async (sessionId: string, input: SessionInput, requestId: string) => {
    if (input.type === 'prompt' || input.type === 'resume') return enqueue(sessionId, input, requestId);
    const active = await activeTurn(sessionId);
    if (active === undefined) return enqueue(sessionId, input, requestId);
    await client.send(active, { input, requestId } satisfies TurnInput, SESSION_INPUT_TOPIC, requestId);
    if (options.control) await publishLive(options.control, sessionId, input, requestId);
    // The turn may have taken its last look at its mailbox before the input reached it (it is
    // closing) or ended already: then a turn of its own takes it (its request id keeps it from
    // being applied twice if the old turn did apply it).
    const closing = await client.getEvent<boolean>(active, TURN_CLOSING_EVENT, 0);
    const status = await client.retrieveWorkflow(active).getStatus();
    if (closing === true || (status?.status !== 'PENDING' && status?.status !== 'ENQUEUED')) return enqueue(sessionId, input, requestId);
    return active;
  };
  return {
    activeTurn: (sessionId) => bounded('activeTurn', activeTurn(sessionId)),
    async send(sessionId, input, requestId) {
      assertSessionRequest({ sessionId, input, requestId }, { sending: true });
      return await bounded(`send (${input.type}, request ${requestId})`, send(sessionId, input, requestId));
    },
    turn: (workflowId) => client.retrieveWorkflow<TurnSummary>(workflowId),
  };
}
