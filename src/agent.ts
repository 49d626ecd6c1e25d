import type { Instructions, ModelMessage, Output, ToolSet } from 'ai';
import type { Observable } from 'rxjs';
import type { Actor } from 'xstate';
import type { CheckpointInfo } from './persistence/session-recorder.js';
import type { AgentEvent } from './core/events.js';
import type { AgentMachine } from './machine/agent-machine.js';
import { contextTokensOf } from './machine/compaction-updates.js';
import { messageShapeProblem, SYSTEM_IN_HISTORY } from './core/message-shape.js';
import { AgentSession, sendInput, untilSession } from './session/session-actor.js';
import type { AgentEmbedding } from './session/session-host.js';
import type { RunAbandonment, SessionInputEvent, SessionRefusal } from './session/session-events.js';
import { parseAgentOptions, type AgentOptions } from './options.js';
import type { RunResult } from './core/result.js';

/** What `agent.run` accepts: a user text, one message, or several. */
export type Prompt = string | ModelMessage | ModelMessage[];

/** Thrown (as a rejection) by `agent.run` while another run is active. */
export class AgentBusyError extends Error {
  override readonly name = 'AgentBusyError';
  constructor() {
    super('A run is already active on this agent: wait for it, abort it, or use steer() or followUp() to add to it.');
  }
}

/** A `run()` that was waiting for approval when its agent was disposed: the run stays in the session, to be continued where it is opened next. */
export class AgentDisposedError extends Error {
  override readonly name = 'AgentDisposedError';
}

/** Thrown by `approve`/`deny` for an id that does not wait for an answer. */
export class ApprovalError extends Error {
  override readonly name = 'ApprovalError';
}

/** An agent: a running statechart actor with a small, promise-based facade. */
export interface Agent<TOOLS extends ToolSet = ToolSet, OUTPUT = unknown> {
  /**
   * Runs the loop on `prompt`, continuing the history. Resolves with the outcome; never rejects for
   * loop-level failures. Rejects with a `TypeError` for a malformed prompt (empty, not a string, a
   * message or an array of messages) and with `AgentBusyError` while another run is active.
   */
  run(prompt: Prompt): Promise<RunResult<OUTPUT>>;
  /** Every event the agent reports, in order. */
  readonly events$: Observable<AgentEvent<TOOLS>>;
  /** Aborts the active run (its `run` promise resolves with outcome `aborted`). Does nothing while idle. */
  abort(reason?: string): void;
  /**
   * Approves a tool call that waits in `awaitingApproval` (see the `approval` option).
   * @throws ApprovalError when no call with that id waits (unknown, or already answered).
   */
  approve(toolCallId: string): void;
  /**
   * Denies a waiting tool call; the model sees the denial (with `reason`), or the run ends `denied` with `onDeny: 'stop'`.
   * @throws ApprovalError when no call with that id waits (unknown, or already answered).
   */
  deny(toolCallId: string, reason?: string): void;
  /** Tool-call ids waiting for approve/deny right now. */
  readonly pendingApprovals: string[];
  /**
   * Redirects the active run: the tool call that is executing finishes, the calls of that step not yet
   * started are skipped, the message is appended and the model is called again. While calls wait for
   * approval, the wait ends at once: they are skipped, leave `pendingApprovals`, and a later
   * `approve`/`deny` for them throws `ApprovalError`. While idle, the message waits for the next run
   * and is appended after its prompt.
   * @throws TypeError when `message` is not a string or a `ModelMessage`.
   */
  steer(message: string | ModelMessage): void;
  /**
   * Queues a message delivered when the run would otherwise complete, so the same run goes on. While idle, it waits for the next run.
   * @throws TypeError when `message` is not a string or a `ModelMessage`.
   */
  followUp(message: string | ModelMessage): void;
  /** The current history, as an array made once per history and shared: read it, and copy it (`slice()`) to change it. */
  readonly messages: ModelMessage[];
  /** The agent's tools. */
  readonly tools: TOOLS;
  /** The agent's structured output (`createAgent({ output })`), undefined without one. */
  readonly output: Output.Output | undefined;
  /** The agent's instructions (`createAgent({ instructions })`), undefined without them. */
  readonly instructions: Instructions | undefined;
  /** The context's size in tokens: the last LLM call's provider usage plus an estimate (characters / 4) of the messages added since. */
  readonly contextTokens: number;
  /** True while a run is active. */
  readonly isRunning: boolean;
  /**
   * The XState actor, for inspection, snapshots and advanced use. One object for the agent's life:
   * with a `store` it reads the restored session once `ready()` resolves, and what was subscribed to
   * it before goes on hearing from it.
   */
  readonly actor: Actor<AgentMachine>;
  /** The session id, when the agent has a `store`. */
  readonly sessionId: string | undefined;
  /** Resolves once the session is loaded (or created); `run` waits for it by itself. */
  ready(): Promise<void>;
  /** The run a restored session was in the middle of, continued from its last checkpoint; undefined when there was none. */
  resume(): Promise<RunResult<OUTPUT> | undefined>;
  /** The session's step boundaries so far (with a `store`), oldest first. */
  checkpoints(): CheckpointInfo[];
  /**
   * Resolves once every step boundary reached so far is in the store (at once without a store).
   * A write that failed has already ended its run `failed`; `settled()` does not reject for it.
   */
  settled(): Promise<void>;
  /**
   * Stops the agent for good: an active run is aborted and awaited, except one that waits for
   * approval, which stays in the session as it is (its `run()` rejects with `AgentDisposedError`)
   * to be continued by whichever agent opens the session next. Then waits for the writes
   * (`settled()`), stops the actor and releases the session's lease.
   *
   * @example
   * ```ts
   * const agent = createAgent({ model, store, sessionId: 'chat-42', lease: { owner: 'worker-1' } });
   * await agent.run('hello');
   * await agent.dispose(); // another worker may take the session now
   * ```
   */
  dispose(): Promise<void>;
}

/**
 * Creates an agent whose loop is the `agentMachine` statechart.
 *
 * @example
 * ```ts
 * import { createAgent } from 'loopchart';
 * import { openai } from '@ai-sdk/openai';
 *
 * const agent = createAgent({ model: openai.chat('gpt-4o-mini'), instructions: 'Be brief.', tools, maxSteps: 10 });
 * agent.events$.subscribe((event) => event.type === 'text-delta' && process.stdout.write(event.text));
 * const result = await agent.run('What is in README.md?');
 * console.log(result.outcome, result.usage);
 * ```
 * @throws AgentOptionsError when an option is invalid; the message names each bad option.
 */
export function createAgent<TOOLS extends ToolSet = ToolSet, OUTPUT = unknown>(options: AgentOptions<TOOLS, OUTPUT>): Agent<TOOLS, OUTPUT> {
  const validated = parseAgentOptions(options);
  // The agent runs any ToolSet and Output; TOOLS and OUTPUT only type what comes out (events$, tools, result.output).
  return new StatechartAgent(validated) as unknown as Agent<TOOLS, OUTPUT>;
}

/** Where a sub-agent runs: as a child of the calling agent's session, one level deeper. */
export type { AgentEmbedding } from './session/session-host.js';

/** A sub-agent: its actor is a child of the calling agent's session, so the inspector shows the hierarchy. Used by `agentTool`. */
export function createChildAgent(options: AgentOptions, embedding: AgentEmbedding): Agent {
  return new StatechartAgent(parseAgentOptions(options), embedding);
}

/** Each agent's session (its chart's actor and host), kept beside the agent rather than in it: the facade holds no state. */
const sessions = new WeakMap<StatechartAgent, AgentSession>();

function sessionOf(agent: StatechartAgent): AgentSession {
  return sessions.get(agent)!;
}

let inputIds = 0;

/**
 * The `Agent` facade: a promise adapter over the session chart's actor, as `ToolLoopAgent` is over
 * `streamText`. Every call becomes an event of the session chart (`session.prompt`,
 * `session.approve`, …), and every answer is read from the chart: what it emits (a run settled, an
 * input refused) and its snapshots. The facade has no fields of its own (a test keeps it so).
 */
class StatechartAgent implements Agent {
  constructor(options: AgentOptions, embedding: AgentEmbedding = { parent: undefined, depth: 0 }) {
    const session = new AgentSession(options, embedding);
    sessions.set(this, session);
    // A session opens at once; an inspector (or a parent actor) expects to see the actors as the agent is created.
    // Otherwise the chart starts when first used, so that an idle agent holds no actor at all.
    if (options.store || options.inspect !== undefined || embedding.parent !== undefined) void session.actor;
  }

  get events$(): Observable<AgentEvent> {
    return sessionOf(this).host.events$;
  }

  get sessionId(): string | undefined {
    return sessionOf(this).host.sessionId;
  }

  get actor(): Actor<AgentMachine> {
    const session = sessionOf(this);
    void session.actor;
    return session.host.actorView;
  }

  get tools(): ToolSet {
    return sessionOf(this).host.options.tools ?? {};
  }

  get instructions(): Instructions | undefined {
    return sessionOf(this).host.options.instructions;
  }

  get output(): Output.Output | undefined {
    return sessionOf(this).host.options.output;
  }

  get messages(): ModelMessage[] {
    return sessionOf(this).host.messages;
  }

  get contextTokens(): number {
    return contextTokensOf(this.actor.getSnapshot().context);
  }

  get isRunning(): boolean {
    return sessionOf(this).host.isRunActive;
  }

  get pendingApprovals(): string[] {
    return sessionOf(this).host.pendingApprovals;
  }

  async ready(): Promise<void> {
    const snapshot = await untilSession(sessionOf(this).actor, ({ context }) => context.opened || context.openError !== undefined);
    if (!snapshot.context.opened) throw asError(snapshot.context.openError);
  }

  async resume(): Promise<RunResult | undefined> {
    await this.ready();
    const { context } = await untilSession(sessionOf(this).actor, ({ context }) => context.resumed?.status !== 'pending');
    const resumed = context.resumed;
    if (resumed === undefined) return undefined;
    if (resumed.status === 'ended') return resumed.result;
    throw resumed.status === 'abandoned' ? abandonmentError(resumed.reason) : new Error('loopchart: the resumed run did not end');
  }

  checkpoints(): CheckpointInfo[] {
    return sessionOf(this).host.checkpoints;
  }

  settled(): Promise<void> {
    return this.ready().then(
      () => sessionOf(this).host.settled(),
      () => undefined,
    );
  }

  async dispose(): Promise<void> {
    const { actor } = sessionOf(this);
    actor.send({ type: 'session.dispose' });
    await untilSession(actor, (snapshot) => snapshot.status === 'done');
  }

  run(prompt: Prompt): Promise<RunResult> {
    let messages: ModelMessage[];
    try {
      messages = toMessages(prompt);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    const { actor } = sessionOf(this);
    if (actor.getSnapshot().status !== 'active') return Promise.reject(new AgentDisposedError(DISPOSED));
    const inputId = `prompt-${++inputIds}`;
    const event: SessionInputEvent = { type: 'session.prompt', messages, inputId };
    return new Promise<RunResult>((resolve, reject) => {
      const subscriptions = [
        actor.on('session.runSettled', (settled) => settled.inputId === inputId && finish(() => resolve(settled.result))),
        actor.on('session.runAbandoned', (abandoned) => abandoned.inputId === inputId && finish(() => reject(abandonmentError(abandoned.reason)))),
        actor.on('session.inputRefused', (refused) => refused.input === event && finish(() => reject(refusalError(refused.reason)))),
      ];
      const finish = (settle: () => void) => {
        for (const subscription of subscriptions) subscription.unsubscribe();
        settle();
      };
      actor.send(event);
    });
  }

  abort(reason?: string): void {
    // Refused while idle: an abort then has nothing to do.
    sendInput(sessionOf(this).actor, { type: 'session.abort', ...(reason !== undefined ? { reason } : {}) });
  }

  approve(toolCallId: string): void {
    this.answer({ type: 'session.approve', toolCallId });
  }

  deny(toolCallId: string, reason?: string): void {
    this.answer({ type: 'session.deny', toolCallId, ...(reason !== undefined ? { reason } : {}) });
  }

  steer(message: string | ModelMessage): void {
    const [steering] = toMessages(message);
    sessionOf(this).actor.send({ type: 'session.queue', queue: 'steering', message: steering! });
  }

  followUp(message: string | ModelMessage): void {
    const [followUp] = toMessages(message);
    sessionOf(this).actor.send({ type: 'session.queue', queue: 'followUp', message: followUp! });
  }

  /** Sends an answer; one the session refuses (or, sent while the session is busy, would refuse) throws. */
  private answer(event: Extract<SessionInputEvent, { type: 'session.approve' | 'session.deny' }>): void {
    const session = sessionOf(this);
    const pending = session.host.pendingApprovals;
    const outcome = sendInput(session.actor, event);
    if (outcome?.applied ?? pending.includes(event.toolCallId)) return;
    const waiting = pending.length > 0 ? `waiting: ${pending.join(', ')}` : 'no tool call is waiting for approval';
    throw new ApprovalError(`Tool call "${event.toolCallId}" is not waiting for approval (unknown or already answered; ${waiting}).`);
  }
}

const DISPOSED = 'the agent was disposed: create another to go on with the session';

/** The error a `run()` rejects with when the session refuses its prompt. */
function refusalError(reason: SessionRefusal): Error {
  switch (reason.kind) {
    case 'busy':
      return new AgentBusyError();
    case 'closed':
      return new AgentDisposedError(DISPOSED);
    case 'not-open':
      return asError(reason.error);
    default:
      return new Error(reason.message);
  }
}

function abandonmentError(reason: RunAbandonment): Error {
  return reason.kind === 'halted'
    ? reason.error
    : new AgentDisposedError('the agent was disposed while its run waited for approval; the run stays in the session, to be continued where it is opened next');
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/**
 * The prompt as messages (for the session's inputs; not part of the package's API). A malformed prompt is the caller's error, reported as a `TypeError` that
 * says what is wrong; it never reaches the machine.
 */
export function toMessages(prompt: Prompt): ModelMessage[] {
  if (prompt === '' || (Array.isArray(prompt) && prompt.length === 0)) throw new TypeError('The prompt is empty.');
  if (typeof prompt === 'string') return [{ role: 'user', content: prompt }];
  const messages: unknown[] = Array.isArray(prompt) ? prompt : [prompt];
  messages.forEach((message, index) => {
    const problem = messageShapeProblem(message) ?? ((message as ModelMessage).role === 'system' ? SYSTEM_IN_HISTORY : undefined);
    if (problem !== undefined) {
      throw new TypeError(`Invalid prompt${messages.length > 1 || Array.isArray(prompt) ? ` (message ${index})` : ''}: ${problem}. Pass a string, a ModelMessage or an array of them.`);
    }
  });
  return messages as ModelMessage[];
}
