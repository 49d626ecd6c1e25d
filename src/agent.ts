import type { ModelMessage, Output, ToolSet } from 'ai';
import { Observable, Subject } from 'rxjs';
import { generateId } from 'ai';
import { createActor, type Actor, type AnyActorRef, type Snapshot } from 'xstate';
import { machineSetup, type MachineSetup } from './machine-setup.js';
import { EventOutbox } from './event-outbox.js';
import { TraceRecorder } from './trace/trace-recorder.js';
import { runObservers, type RunObserver } from './trace/run-observer.js';
import { createSpanRecorder, type SpanRecorder } from './telemetry/span-recorder.js';
import { isTelemetryEnabled } from './telemetry/telemetry-options.js';
import { restoreSnapshot } from './persistence/checkpoint-snapshot.js';
import type { CheckpointInfo } from './persistence/session-recorder.js';
import { SessionRecorder } from './persistence/session-recorder.js';
import { RunJournal } from './time-travel/run-journal.js';
import { replaySession } from './persistence/session-replay.js';
import { sessionHeader, type SessionStore } from './persistence/session-store.js';
import { holdLease, type HeldLease } from './persistence/lease-keeper.js';
import { isConnectionError } from './persistence/connection-error.js';
import type { AgentEvent } from './core/events.js';
import type { AgentMachine } from './machine/agent-machine.js';
import { bindImplementations, sharedAgentMachine } from './machine/shared-agent-machine.js';
import type { AgentConfig, AgentMachineInput } from './machine/context.js';
import { pendingApprovalIds } from './machine/approval-updates.js';
import { pendingApprovalRequests } from './machine/pending-approval-requests.js';
import { contextTokensOf } from './machine/compaction-updates.js';
import { endRun, requestStop } from './machine/run-updates.js';
import { messageShapeProblem } from './core/message-shape.js';
import { parseAgentOptions, type AgentOptions } from './options.js';
import { errorMessage } from './core/error-message.js';
import type { RunError, RunResult } from './core/result.js';
import { persistedWithoutHistory } from './persistence/checkpoint-snapshot.js';
import { StepResultRecorder } from './results/step-result-recorder.js';
import { generateTextResult } from './results/generate-text-result.js';
import { stableActor, type StableActor } from './stable-actor.js';
import { warnOfUnheardApproval } from './unheard-approval.js';
import { secretList } from './secrets/secret-list.js';
import { redactValue } from './secrets/redact.js';
import { redactingStore } from './persistence/redacting-store.js';
import { shareSecrets } from './secrets/shared-secrets.js';

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
  /** The current history. */
  readonly messages: ModelMessage[];
  /** The agent's tools. */
  readonly tools: TOOLS;
  /** The agent's structured output (`createAgent({ output })`), undefined without one. */
  readonly output: Output.Output | undefined;
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

/** What `advanceSession` needs of an agent beyond its public API: the session's request ids and the lease's epoch. */
export interface SessionControl {
  /** Whether an input with this request id was already applied to the session. */
  hasApplied(requestId: string): boolean;
  /** Records that the input with this request id is being applied: the next checkpoint stores it. */
  noteRequest(requestId: string): void;
  /** The epoch of the lease the agent acquired, if any: also once the lease is lost, so what it did is known by it. */
  readonly epoch: number | undefined;
  /** Why the session's last step boundary is not in the store, if it is not (call after `settled()`). */
  readonly writeFailure: unknown;
  /**
   * Whether what the agent does now is the session's: `held` (the lease is within its time to
   * live), `unverified` (its time has passed: `confirmLease()` tells), or `lost`.
   */
  leaseStatus(): 'held' | 'unverified' | 'lost';
  /** Resolves true when the lease is (still, or again) held, false when it is lost. */
  confirmLease(): Promise<boolean>;
  /**
   * Stops the agent as a crash would, for another attempt to take the session over: nothing more
   * is written (the run stays in the session as its last checkpoint left it), the actor and
   * every model call and tool it runs are stopped, a pending `run()` rejects with `reason`, and
   * the lease is released. `dispose()` afterwards does nothing.
   */
  halt(reason: Error): Promise<void>;
}

/** The session control of an agent made by `createAgent` with a store (after `ready()`). */
export function sessionControlOf(agent: Agent): SessionControl {
  if (!(agent instanceof StatechartAgent)) throw new TypeError('expected an agent made by createAgent');
  return agent.sessionControl();
}

/** Where a sub-agent runs: as a child of the tool runner that calls it, one level deeper. */
export interface AgentEmbedding {
  parent: AnyActorRef | undefined;
  depth: number;
}

/** A sub-agent: its actor is a child of the calling tool runner, so the inspector shows the hierarchy. Used by `agentTool`. */
export function createChildAgent(options: AgentOptions, embedding: AgentEmbedding): Agent {
  return new StatechartAgent(parseAgentOptions(options), embedding);
}

class StatechartAgent implements Agent {
  private readonly subject = new Subject<AgentEvent>();
  readonly events$ = this.subject.asObservable();
  private readonly outbox = new EventOutbox((event) => this.deliver(event));
  private readonly tracer = new TraceRecorder(() => this.started);
  /** OpenTelemetry spans of the runs; undefined (and nothing of it loaded) unless the `telemetry` option is on. */
  private readonly spans: SpanRecorder | undefined;
  /** Everything that watches the runs from the side (the trace, telemetry, the `inspect` option), wired once. */
  private readonly observer: Required<RunObserver>;
  /** This agent's actor implementations once built, bound to each actor it starts (the machine definition is shared). */
  private actors: ReturnType<MachineSetup['implementations']>['actors'] | undefined;
  private readonly setup: MachineSetup;
  private readonly config: AgentConfig;
  /** The `secrets` option: redacted from every event, store write, inspection and span that leaves the agent. */
  private readonly secrets: readonly string[];
  private started: Actor<AgentMachine> | undefined;
  /** Resolves the `run()` promise of the active run when its `run-end` arrives. */
  private pending: ((result: RunResult) => void) | undefined;
  readonly sessionId: string | undefined;
  private recorder: SessionRecorder | undefined;
  /** What the session keeps of each run besides its messages and checkpoints (with a store only). */
  private readonly journal: RunJournal | undefined;
  private readonly opened: Promise<void>;
  /** The session is loaded (always true without a store): runs start synchronously. */
  private isOpen = false;
  /** What was asked of the agent before its session was open, in call order; carried out once it is. */
  private readonly beforeOpen: Array<() => void> = [];
  /** The run a restored session was in the middle of. */
  private resumed: Promise<RunResult> | undefined;
  /** The session's lease while this agent holds it (`lease` option). */
  private lease: HeldLease | undefined;
  private disposed: Promise<void> | undefined;
  private rejectPending: ((error: Error) => void) | undefined;
  /** Set by `halt`: the agent stopped as if its process had died. */
  private halted: Promise<void> | undefined;
  private announceHalt: () => void = () => undefined;
  /** Resolves when `halt` is called: what waits for the actor stops waiting. */
  private readonly haltCalled = new Promise<void>((resolve) => (this.announceHalt = resolve));

  constructor(
    private readonly options: AgentOptions,
    private readonly embedding: AgentEmbedding = { parent: undefined, depth: 0 },
  ) {
    this.setup = machineSetup(options);
    this.config = this.setup.config;
    this.secrets = secretList(options.secrets, 'secrets');
    if (options.inspect) shareSecrets(options.inspect, this.secrets);
    this.spans = isTelemetryEnabled(options.telemetry)
      ? createSpanRecorder(options.telemetry, { model: options.model, root: () => this.started, sessionId: () => this.sessionId, secrets: this.secrets })
      : undefined;
    const user = options.inspect;
    this.journal = options.store
      ? new RunJournal({
          root: () => this.started,
          toolNames: () => Object.keys(this.options.tools ?? {}),
          settings: () => ({ maxSteps: this.config.maxSteps, toolExecution: this.config.toolExecution }),
        })
      : undefined;
    this.observer = runObservers([this.tracer, this.journal, this.spans, user && { inspect: typeof user === 'function' ? user : (event) => user.next?.(event) }]);
    if (options.store) {
      this.sessionId = options.sessionId ?? generateId();
      this.current = this.createActorFrom({ messages: options.messages ?? [] });
      this.opened = this.openSession(redactingStore(options.store, this.secrets), options.sessionId ?? this.sessionId).then(() => {
        this.isOpen = true;
        for (const operation of this.beforeOpen.splice(0)) operation();
      });
      // A session that cannot be opened rejects ready() and every run(); nothing else waits for it.
      this.opened.catch(() => undefined);
    } else {
      this.sessionId = undefined;
      // An inspector (or a parent actor) expects to see the actor as the agent is created; otherwise
      // it starts when first used, so that an idle agent holds no actor at all.
      if (options.inspect !== undefined || embedding.parent !== undefined) this.current = this.startActor({ messages: options.messages ?? [] });
      this.opened = Promise.resolve();
      this.isOpen = true;
    }
  }

  /** The agent's actor, started on first use when the agent has no store. */
  private get current(): Actor<AgentMachine> {
    return (this.started ??= this.startActor({ messages: this.options.messages ?? [] }));
  }

  private set current(actor: Actor<AgentMachine>) {
    const replacing = this.started !== undefined && this.started !== actor;
    this.started = actor;
    if (replacing) this.stable?.replaced();
  }

  /** `agent.actor`: one object whatever actor is current. */
  private stable: StableActor<AgentMachine> | undefined;

  ready(): Promise<void> {
    return this.opened;
  }

  async resume(): Promise<RunResult | undefined> {
    await this.opened;
    return this.resumed;
  }

  checkpoints(): CheckpointInfo[] {
    return this.recorder?.checkpoints ?? [];
  }

  /** This agent's actor implementations, built when its actor first invokes one (an idle agent never needs them). */
  private implementations() {
    return (this.actors ??= this.setup.implementations({
      emit: (event) => {
        // A call's warnings belong in the trace; the other actor events (deltas, tool input) do not.
        if (event.type === 'model-call-start') this.observer.event(event);
        this.outbox.push(event);
      },
      ...(this.options.store ? { admit: () => this.admitEffect() } : {}),
      runSteps: () => ({ steps: this.stepResults?.steps ?? [], responseMessages: this.stepResults?.responseMessages ?? [] }),
      traceHook: (timing) => this.observer.hook(timing),
      depth: this.embedding.depth,
      ...(this.spans ? { runToolCall: this.spans.runToolCall } : {}),
    }).actors);
  }

  sessionControl(): SessionControl {
    const recorder = () => {
      if (!this.recorder) throw new Error('the agent has no open session: create it with a store and await ready()');
      return this.recorder;
    };
    const agent = () => this;
    return {
      hasApplied: (requestId) => recorder().hasApplied(requestId),
      noteRequest: (requestId) => recorder().noteRequest(requestId),
      get epoch() {
        return agent().lease?.epoch;
      },
      get writeFailure() {
        return agent().recorder?.writeFailure;
      },
      halt: (reason) => (this.halted ??= this.haltOnce(reason)),
      leaseStatus: () => (!this.lease ? 'held' : this.lease.lost ? 'lost' : this.lease.isCurrent() ? 'held' : 'unverified'),
      confirmLease: () => (this.lease ? this.lease.ensureHeld().then(() => true, () => false) : Promise.resolve(true)),
    };
  }

  settled(): Promise<void> {
    return this.opened.then(
      () => this.recorder?.settled(),
      () => undefined,
    );
  }

  dispose(): Promise<void> {
    return (this.disposed ??= this.halted ?? this.disposeOnce());
  }

  private async haltOnce(reason: Error): Promise<void> {
    this.announceHalt();
    await this.opened.catch(() => undefined);
    // The actor first: no step boundary, model call or tool after this; the writes already handed over land.
    this.started?.stop();
    this.rejectPending?.(reason);
    this.pending = undefined;
    this.rejectPending = undefined;
    await this.recorder?.settled();
    this.recorder?.close(reason);
    await this.lease?.release().catch(() => undefined);
  }

  private async disposeOnce(): Promise<void> {
    await this.opened.catch(() => undefined);
    if (this.halted) return this.halted;
    if (this.isRunning && !this.current.getSnapshot().matches({ running: 'awaitingApproval' })) {
      const ended = new Promise<void>((resolve) => {
        const subscription = this.events$.subscribe((event) => {
          if (event.type !== 'run-end') return;
          subscription.unsubscribe();
          resolve();
        });
      });
      this.abort('the agent was disposed');
      await Promise.race([ended, this.haltCalled]);
      if (this.halted) return this.halted;
    }
    await this.settled();
    this.started?.stop();
    this.rejectPending?.(new AgentDisposedError('the agent was disposed while its run waited for approval; the run stays in the session, to be continued where it is opened next'));
    this.pending = undefined;
    this.rejectPending = undefined;
    // A store out of reach now cannot take the release: the lease lapses by itself, and the work is done.
    await this.lease?.release().catch(() => undefined);
  }

  /**
   * Takes the session's lease and keeps renewing it. A lease found lost — taken by another owner,
   * or run out while the store could not be reached — closes the session's writer and stops the
   * run at once: nothing more is written, and no model call or tool starts (`admitEffect`).
   */
  private async holdLease(store: SessionStore, sessionId: string): Promise<number | undefined> {
    const leaseOptions = this.options.lease;
    if (!leaseOptions || !store.leases) return undefined;
    this.lease = await holdLease({
      leases: store.leases,
      sessionId,
      owner: leaseOptions.owner,
      ttlMs: leaseOptions.ttlMs ?? 30_000,
      onLost: (error) => {
        this.recorder?.close(error);
        this.onWriteFailure(this.current, error);
      },
    });
    return this.lease.epoch;
  }

  /**
   * Resolves when a model call or a tool may start: the session's last step boundary is in the
   * store and the lease (if any) is still held. Otherwise the run has been told to stop (`failed`,
   * `session-write`) and this rejects, so the effect never starts: a refused write or a lost lease
   * is never followed by more work that a resumed run would do again.
   */
  private async admitEffect(): Promise<void> {
    // The boundary just entered is handed to the writer when its macrostep ends, after the actor that asks has started.
    await Promise.resolve();
    await this.recorder?.settled();
    const failure = this.recorder?.writeFailure;
    if (failure !== undefined) throw failure instanceof Error ? failure : new Error(errorMessage(failure));
    await this.lease?.ensureHeld();
  }

  /** A write that failed on a cut connection is tried again while the lease holds (or, without a lease, for 30 s). */
  private readonly retryWrite = async (error: unknown, _attempt: number, elapsedMs: number): Promise<boolean> => {
    if (!isConnectionError(error)) return false;
    if (!this.lease) return elapsedMs < 30_000;
    await this.lease.ensureHeld();
    return true;
  };

  /** The root span of a run telemetry records, for the session's checkpoints. */
  private readonly traceContextOf = (runId: string) => this.spans?.traceContext(runId);

  /** Loads the session (or starts it), then starts the actor from its last checkpoint. */
  private async openSession(store: SessionStore, sessionId: string): Promise<void> {
    const epoch = await this.holdLease(store, sessionId);
    const fence = epoch !== undefined ? { epoch } : {};
    const log = await store.read(sessionId);
    if (!log) {
      const version = await store.create(sessionHeader(sessionId));
      this.recorder = new SessionRecorder(store, sessionId, { messages: [], checkpoints: [], ...(version !== undefined ? { version } : {}), ...fence }, this.traceContextOf, this.retryWrite, this.journal);
      this.current = this.startActor({ messages: this.options.messages ?? [] });
      return;
    }
    for (const warning of log.warnings) this.outbox.push({ type: 'session-warning', sessionId, message: warning });
    const replayed = replaySession(log.records);
    // A version-1 session stays readable by the loopchart that wrote it: it gets no run records.
    const runRecords = log.header.version >= 2 ? this.journal : undefined;
    this.recorder = new SessionRecorder(store, sessionId, { ...replayed, version: log.version, ...fence }, this.traceContextOf, this.retryWrite, runRecords);
    if (!replayed.last) {
      this.current = this.startActor({ messages: replayed.messages });
      return;
    }
    const snapshot = restoreSnapshot(replayed.last.snapshot, replayed.messages, this.config);
    if (replayed.last.state !== 'idle') {
      const { runId, traceContext } = replayed.last;
      if (runId !== undefined && traceContext !== undefined) this.spans?.resumeFrom(runId, traceContext);
      this.resumed = new Promise<RunResult>((resolve, reject) => {
        this.pending = resolve;
        this.rejectPending = reject;
      });
      this.resumed.catch(() => undefined);
    }
    this.current = this.startActor({ messages: replayed.messages, snapshot }, (actor) => this.recorder?.restoredAt(actor.getSnapshot()));
    // The first requests went to the process that stopped: whoever answers now hears of them too.
    const restored = this.current.getSnapshot();
    if (restored.matches({ running: 'awaitingApproval' })) for (const request of pendingApprovalRequests(restored.context)) this.outbox.push(request);
  }

  get actor(): Actor<AgentMachine> {
    return (this.stable ??= stableActor(() => this.current)).view;
  }

  get tools(): ToolSet {
    return this.options.tools ?? {};
  }

  get output(): Output.Output | undefined {
    return this.options.output;
  }

  get messages(): ModelMessage[] {
    return this.started?.getSnapshot().context.messages ?? this.options.messages ?? [];
  }

  get contextTokens(): number {
    return contextTokensOf(this.current.getSnapshot().context);
  }

  get isRunning(): boolean {
    return this.started?.getSnapshot().context.run !== undefined;
  }

  run(prompt: Prompt): Promise<RunResult> {
    if (this.disposed) return Promise.reject(new AgentDisposedError('the agent was disposed: create another to go on with the session'));
    let messages: ModelMessage[];
    try {
      messages = toMessages(prompt);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    if (!this.isOpen) {
      // Queued with the other calls made before the session is open, so that their order holds
      // (a follow-up before this run, an abort after it) and a resumed run counts as active.
      return new Promise<RunResult>((resolve, reject) => {
        this.beforeOpen.push(() => this.begin(messages, resolve, reject));
        this.opened.catch((error: unknown) => reject(error instanceof Error ? error : new Error(String(error))));
      });
    }
    return new Promise<RunResult>((resolve, reject) => this.begin(messages, resolve, reject));
  }

  private begin(messages: ModelMessage[], resolve: (result: RunResult) => void, reject: (error: Error) => void): void {
    if (this.isRunning || this.pending) {
      reject(new AgentBusyError());
      return;
    }
    this.pending = resolve;
    this.rejectPending = reject;
    this.startRun(messages);
  }

  /** Runs `operation` now, or once the session is open, in call order with `run()`. */
  private whenOpen(operation: () => void): void {
    if (this.isOpen) operation();
    else this.beforeOpen.push(operation);
  }

  private startRun(messages: ModelMessage[]): void {
    this.current.send({ type: 'agent.prompt', messages });
  }

  abort(reason?: string): void {
    if (!this.isOpen) {
      this.whenOpen(() => this.abort(reason));
      return;
    }
    if (!this.isRunning) return;
    this.current.send({ type: 'agent.abort', ...(reason !== undefined ? { reason } : {}) });
  }

  get pendingApprovals(): string[] {
    const snapshot = this.current.getSnapshot();
    return snapshot.matches({ running: 'awaitingApproval' }) ? pendingApprovalIds(snapshot.context) : [];
  }

  approve(toolCallId: string): void {
    this.assertWaiting(toolCallId);
    this.current.send({ type: 'agent.approve', toolCallId });
  }

  deny(toolCallId: string, reason?: string): void {
    this.assertWaiting(toolCallId);
    this.current.send({ type: 'agent.deny', toolCallId, ...(reason !== undefined ? { reason } : {}) });
  }

  steer(message: string | ModelMessage): void {
    const [steering] = toMessages(message);
    this.whenOpen(() => this.current.send({ type: 'agent.steer', message: steering! }));
  }

  followUp(message: string | ModelMessage): void {
    const [followUp] = toMessages(message);
    this.whenOpen(() => this.current.send({ type: 'agent.followUp', message: followUp! }));
  }

  private assertWaiting(toolCallId: string): void {
    const pending = this.pendingApprovals;
    if (pending.includes(toolCallId)) return;
    const waiting = pending.length > 0 ? `waiting: ${pending.join(', ')}` : 'no tool call is waiting for approval';
    throw new ApprovalError(`Tool call "${toolCallId}" is not waiting for approval (unknown or already answered; ${waiting}).`);
  }

  private createActorFrom(from: { messages: ModelMessage[]; snapshot?: unknown }): Actor<AgentMachine> {
    const input: AgentMachineInput = { messages: from.messages, config: this.config };
    const actor = createActor(sharedAgentMachine, {
      input,
      ...(this.embedding.parent ? { parent: this.embedding.parent } : {}),
      ...(from.snapshot ? { snapshot: from.snapshot as Snapshot<unknown> } : {}),
      inspect: this.observer.inspect,
    });
    bindImplementations(actor, () => ({ actors: this.implementations() }));
    return actor;
  }

  private startActor(from: { messages: ModelMessage[]; snapshot?: unknown }, beforeStart?: (actor: Actor<AgentMachine>) => void): Actor<AgentMachine> {
    const actor = this.createActorFrom(from);
    beforeStart?.(actor);
    actor.on('*', (event) => this.onMachineEvent(event));
    actor.subscribe({
      next: (snapshot) => {
        if (!this.recorder || actor !== this.started) return;
        const write = this.recorder.observe(snapshot, () => persistedWithoutHistory(actor));
        write?.catch((error: unknown) => this.onWriteFailure(actor, error));
        this.outbox.settleMacrostep(write);
      },
      error: (error) => {
        this.outbox.flush();
        this.recoverFromCrash(actor, error);
      },
    });
    this.current = actor;
    actor.start();
    return actor;
  }

  /** An event the machine emitted: traced, and with `run-end` the run's trace is attached. */
  private onMachineEvent(event: AgentEvent): void {
    this.observer.event(event);
    const trace = event.type === 'run-end' ? this.tracer.takeFinished() : undefined;
    if (event.type === 'run-end') {
      if (trace) this.journal?.noteTrace(trace);
      this.recorder?.noteRunEnd(event.result.outcome, event.runId);
      if (trace) {
        event.result.trace = trace;
        this.emitMachineEvent({ type: 'trace', runId: event.runId, trace });
      }
    }
    this.emitMachineEvent(event);
  }

  /** An event from the machine: with a store it waits for the macrostep's write. */
  private emitMachineEvent(event: AgentEvent): void {
    if (this.recorder) this.outbox.enqueue(event);
    else this.deliver(event);
  }

  private deliver(given: AgentEvent): void {
    const event = redactValue(given, this.secrets);
    this.recordStep(event);
    if (event.type === 'run-end') this.settle(event.result);
    // A request no one hears of would wait for ever in silence; with approvalTimeoutMs the wait ends by itself.
    if (event.type === 'approval-request' && !this.subject.observed && this.options.approvalTimeoutMs === undefined) warnOfUnheardApproval(event);
    this.subject.next(event);
  }

  /** The run's steps as the AI SDK's `StepResult`s, from its events; they join the result at its end. */
  private stepResults: StepResultRecorder | undefined;

  private recordStep(event: AgentEvent): void {
    if (event.type === 'run-start') this.stepResults = new StepResultRecorder(this.tools);
    const recorder = (this.stepResults ??= new StepResultRecorder(this.tools));
    recorder.event(event);
    if (event.type !== 'run-end') return;
    this.stepResults = undefined;
    const generated = generateTextResult(recorder, undefined);
    Object.assign(event.result, {
      steps: recorder.steps,
      toolCalls: generated.toolCalls,
      toolResults: generated.toolResults,
      reasoning: recorder.steps.length > 0 ? generated.reasoning : [],
      reasoningText: generated.reasoningText,
      warnings: generated.warnings,
    });
  }

  /**
   * A step boundary could not be written (disk full, read-only or deleted file, another writer):
   * the run must not go on as if it were durable, or a resume would run its tools again. It is
   * stopped, ends `failed` with error kind `session-write`, and a `session-warning` says why.
   */
  private onWriteFailure(actor: Actor<AgentMachine>, error: unknown): void {
    const message = `writing the session failed: ${errorMessage(error)}`;
    this.outbox.push({ type: 'session-warning', sessionId: this.sessionId!, message });
    if (actor === this.started) actor.send({ type: 'session.writeFailed', message });
  }

  private settle(result: RunResult): void {
    const resolve = this.pending;
    this.pending = undefined;
    this.rejectPending = undefined;
    resolve?.(result);
  }

  /**
   * A crash inside the machine (a bug, or a throwing custom actor) must not
   * lose the history or leave `run` pending: the run ends `failed` through the
   * machine's own pure `endRun` (dangling tool calls get results, `run-end`
   * carries the result and its trace), and a fresh actor continues from that
   * history.
   */
  private recoverFromCrash(crashed: Actor<AgentMachine>, error: unknown): void {
    const { context } = crashed.getSnapshot();
    const runError: RunError = { kind: 'unknown', message: `loopchart internal error: ${errorMessage(error)}` };
    if (!context.run) {
      this.current = this.startActor({ messages: context.messages });
      return;
    }
    const stopped = requestStop(context, 'failed', 'the agent crashed', runError).context;
    const ended = endRun(stopped, 'failed', runError, Date.now());
    // The events first, so that the fresh actor's first snapshot is the ended run's checkpoint and they go out once it is written.
    for (const event of ended.events) this.onMachineEvent(event);
    this.current = this.startActor({ messages: ended.context.messages });
  }
}

/**
 * The prompt as messages. A malformed prompt is the caller's error, reported as a `TypeError` that
 * says what is wrong; it never reaches the machine.
 */
function toMessages(prompt: Prompt): ModelMessage[] {
  if (prompt === '' || (Array.isArray(prompt) && prompt.length === 0)) throw new TypeError('The prompt is empty.');
  if (typeof prompt === 'string') return [{ role: 'user', content: prompt }];
  const messages: unknown[] = Array.isArray(prompt) ? prompt : [prompt];
  messages.forEach((message, index) => {
    const problem = messageShapeProblem(message);
    if (problem !== undefined) {
      throw new TypeError(`Invalid prompt${messages.length > 1 || Array.isArray(prompt) ? ` (message ${index})` : ''}: ${problem}. Pass a string, a ModelMessage or an array of them.`);
    }
  });
  return messages as ModelMessage[];
}
