import type { MessageList } from '../core/message-history.js';
import type { ModelMessage } from 'ai';
import { generateId } from 'ai';
import { Subject, type Observable } from 'rxjs';
import { createActor, type Actor, type AnyActorRef, type EventObject, type InspectionEvent } from 'xstate';
import { machineSetup, type MachineSetup } from '../machine-setup.js';
import { EventOutbox } from '../event-outbox.js';
import { TraceRecorder } from '../trace/trace-recorder.js';
import { runObservers, type RunObserver } from '../trace/run-observer.js';
import { RunJournal } from '../time-travel/run-journal.js';
import { createSpanRecorder, type SpanRecorder } from '../telemetry/span-recorder.js';
import { isTelemetryEnabled } from '../telemetry/telemetry-options.js';
import { checkRestorable, persistedWithoutHistory, restoreSnapshot } from '../persistence/checkpoint-snapshot.js';
import { SessionRecorder, type CheckpointInfo } from '../persistence/session-recorder.js';
import { replaySession } from '../persistence/session-replay.js';
import { sessionHeader, SessionFormatError, type SessionStore } from '../persistence/session-store.js';
import { redactingStore } from '../persistence/redacting-store.js';
import { boundedStore } from '../persistence/bounded-store.js';
import { acquireLease, renewalInterval, renewLeasePeriodically, type HeldLease } from '../persistence/lease-keeper.js';
import { isConnectionError } from '../persistence/connection-error.js';
import type { AgentEvent } from '../core/events.js';
import type { SubagentHome } from '../core/runtime.js';
import type { AgentMachine } from '../machine/agent-machine.js';
import type { AgentConfig, AgentMachineInput } from '../machine/context.js';
import { pendingApprovalIds } from '../machine/approval-updates.js';
import { pendingApprovalRequests } from '../machine/pending-approval-requests.js';
import { endRun, requestStop } from '../machine/run-updates.js';
import { bindImplementations, sharedAgentMachine } from '../machine/shared-agent-machine.js';
import { isAwaitingApproval } from '../machine/state-name.js';
import type { AgentOptions } from '../options.js';
import { errorMessage } from '../core/error-message.js';
import type { RunError } from '../core/result.js';
import { StepResultRecorder } from '../results/step-result-recorder.js';
import { runResultStepFields } from '../results/generate-text-result.js';
import { stableActor, type StableActor } from '../stable-actor.js';
import { warnOfUnheardApproval } from '../unheard-approval.js';
import { secretList } from '../secrets/secret-list.js';
import { redactValue } from '../secrets/redact.js';
import { shareSecrets } from '../secrets/shared-secrets.js';
import type { RunAbandonment, SessionSignalEvent } from './session-events.js';

/** Where a sub-agent runs: as a child of the calling agent's session, one level deeper. */
export interface AgentEmbedding {
  parent: AnyActorRef | undefined;
  depth: number;
}

/** How the session's run chart starts: from a history, or from a stored checkpoint. */
export interface RunStart {
  messages: MessageList;
  /** The stored checkpoint's snapshot, history put back; undefined for a fresh run chart. */
  snapshot?: unknown;
  /** What the restored run was doing: nothing (`idle`), working, or waiting for approval; `ending`: it ended (a crash), its `run-end` not yet delivered. */
  state: 'idle' | 'running' | 'waiting' | 'ending';
}

export type { CheckpointInfo };

/**
 * The session chart's runtime: everything of a session that is not a state — the options, the
 * event stream (`events$`, held back until the boundary it follows is written), the trace and
 * telemetry recorders, and the resources the chart's actors acquire and let go (the lease, the
 * session writer, the run chart actor). The chart decides when each is acquired, used and let
 * go; this only does it. Its fields are private (`#`), so that the inspector, which sees it in
 * the chart's context, sees none of it.
 */
export class SessionHost {
  readonly #options: AgentOptions;
  readonly #embedding: AgentEmbedding;
  readonly #setup: MachineSetup;
  readonly #config: AgentConfig;
  /** The `secrets` option: redacted from every event, store write, inspection and span that leaves the agent. */
  readonly #secrets: readonly string[];
  /** The `store` option as the session writes to it: with `secrets`, redacted on the way in. */
  readonly #store: SessionStore | undefined;
  readonly #sessionId: string | undefined;
  readonly #subject = new Subject<AgentEvent>();
  readonly #events$: Observable<AgentEvent> = this.#subject.asObservable();
  readonly #outbox = new EventOutbox((event) => this.#deliver(event));
  readonly #tracer = new TraceRecorder(() => this.#run);
  /** OpenTelemetry spans of the runs; undefined (and nothing of it loaded) unless the `telemetry` option is on. */
  readonly #spans: SpanRecorder | undefined;
  /** What the session keeps of each run besides its messages and checkpoints (with a store only). */
  readonly #journal: RunJournal | undefined;
  /** Everything that watches the runs from the side (the trace, the run journal, telemetry), wired once; it reads the run chart's own events and microsteps. */
  readonly #observer: Required<RunObserver>;
  /** The `inspect` option: every inspection event of the session's actors (the system's), when given. */
  readonly #userInspect: ((event: InspectionEvent) => void) | undefined;
  #actors: ReturnType<MachineSetup['implementations']>['actors'] | undefined;
  /** The run chart actor the session invoked (the current one: a crash replaces it). */
  #run: Actor<AgentMachine> | undefined;
  /** `agent.actor` before the run chart exists: an actor that is never started. */
  #placeholder: Actor<AgentMachine> | undefined;
  #stable: StableActor<AgentMachine> | undefined;
  /** The session's writer, once the session is loaded or created. */
  #recorder: SessionRecorder | undefined;
  /** The session's lease, from its acquisition until its release. */
  #lease: HeldLease | undefined;
  /** The run's steps as the AI SDK's `StepResult`s, from its events. */
  #stepResults: StepResultRecorder | undefined;
  /** The write failure or lost lease the last `session-warning` was about. */
  #warnedOf: unknown;
  /** Where the next run chart starts: the session chart sets it before it invokes one. */
  #start: RunStart = { messages: [], state: 'idle' };
  /** Tells the session chart what its run and its writer did. */
  #notify: (event: SessionSignalEvent) => void = () => undefined;
  /** The session chart's actor, the parent of the sub-agents its tool calls start. */
  #session: AnyActorRef | undefined;
  /** The sub-agents still running or being disposed, each as the promise that settles once it is. */
  readonly #subagents = new Set<Promise<void>>();
  readonly #subagentHome: SubagentHome = {
    parent: () => this.#session,
    hold: (ending) => {
      const held: Promise<void> = ending.then(
        () => void this.#subagents.delete(held),
        () => void this.#subagents.delete(held),
      );
      this.#subagents.add(held);
    },
  };

  constructor(options: AgentOptions, embedding: AgentEmbedding) {
    this.#options = options;
    this.#embedding = embedding;
    this.#setup = machineSetup(options);
    this.#config = this.#setup.config;
    this.#secrets = secretList(options.secrets, 'secrets');
    if (options.inspect) shareSecrets(options.inspect, this.#secrets);
    // A store that stopped answering ends in an error, not a hung run.
    this.#store = options.store ? boundedStore(redactingStore(options.store, this.#secrets), this.#storeCallMs()) : undefined;
    this.#sessionId = options.store ? (options.sessionId ?? generateId()) : undefined;
    this.#spans = isTelemetryEnabled(options.telemetry)
      ? createSpanRecorder(options.telemetry, { model: options.model, root: () => this.#run, sessionId: () => this.#sessionId, secrets: this.#secrets })
      : undefined;
    this.#journal = options.store
      ? new RunJournal({
          root: () => this.#run,
          toolNames: () => Object.keys(this.#options.tools ?? {}),
          settings: () => ({ maxSteps: this.#config.maxSteps, toolExecution: this.#config.toolExecution }),
        })
      : undefined;
    const user = options.inspect;
    this.#userInspect = user && (typeof user === 'function' ? user : (event) => user.next?.(event));
    this.#observer = runObservers([this.#tracer, this.#journal, this.#spans]);
  }

  get options(): AgentOptions {
    return this.#options;
  }

  get embedding(): AgentEmbedding {
    return this.#embedding;
  }

  get sessionId(): string | undefined {
    return this.#sessionId;
  }

  get hasStore(): boolean {
    return this.#options.store !== undefined;
  }

  get hasLease(): boolean {
    return this.#options.lease !== undefined && this.#options.store?.leases !== undefined;
  }

  get events$(): Observable<AgentEvent> {
    return this.#events$;
  }

  /** The session chart's actor, which the chart's signals go to (set once, as it is created). */
  connect(session: AnyActorRef): void {
    this.#session = session;
    this.#notify = (event) => session.send(event);
  }

  /**
   * The `inspect` option as the session's actor system hears it, or undefined when it is not given:
   * nothing inspects the system then (an observer makes XState report every action, snapshot and
   * event of every actor).
   */
  get inspect(): ((event: InspectionEvent) => void) | undefined {
    return this.#userInspect;
  }

  /**
   * The run chart takes `event`: the trace, the run journal and telemetry hear of it as of an
   * `@xstate.event` inspection event, as the chart starts on it (the actor still has the snapshot
   * it finds). Its microsteps follow ({@link runMicrostep}).
   */
  runTakes(event: EventObject): void {
    const run = this.#run;
    if (run) this.#observer.inspect({ type: '@xstate.event', actorRef: run, sourceRef: undefined, event, rootId: run.sessionId });
  }

  /** A microstep of the run chart (its `@xstate.microstep` inspection event), for the trace, the run journal and telemetry. */
  runMicrostep(event: InspectionEvent): void {
    this.#observer.inspect(event);
  }

  // --- the run chart ---

  /** The run chart actor, once the session invoked it. */
  get run(): Actor<AgentMachine> | undefined {
    return this.#run;
  }

  /** `agent.actor`: one object for the agent's life, whichever run chart actor is current. */
  get actorView(): Actor<AgentMachine> {
    return (this.#stable ??= stableActor(() => this.#run ?? (this.#placeholder ??= this.#createPlaceholder()))).view;
  }

  /** The history as an array (made once per history: read it, do not change it). */
  get messages(): ModelMessage[] {
    return (this.#run?.getSnapshot().context.messages.toArray() ?? this.#options.messages ?? []) as ModelMessage[];
  }

  get isRunActive(): boolean {
    return this.#run?.getSnapshot().context.run !== undefined;
  }

  /** Tool-call ids the run waits on for an answer right now. */
  get pendingApprovals(): string[] {
    const snapshot = this.#run?.getSnapshot();
    return snapshot?.matches({ running: 'awaitingApproval' }) ? pendingApprovalIds(snapshot.context) : [];
  }

  /** Where the next run chart starts (kept here, not in the chart's context: the inspector would see the history). */
  startRunFrom(start: RunStart): void {
    this.#start = start;
  }

  /** The next run chart's input, and the checkpoint it restores (taken once: the chart does not keep it). */
  takeRunStart(): { input: AgentMachineInput; snapshot: unknown } {
    const { messages, snapshot } = this.#start;
    this.#start = { messages: [], state: this.#start.state };
    return { input: { messages, config: this.#config }, snapshot };
  }

  /**
   * The run chart actor was created (by the session's invocation): it gets this agent's
   * implementations, and its events go to `events$` (through the trace and telemetry). A
   * restored snapshot is the session's last boundary, already written.
   */
  attachRun(actor: Actor<AgentMachine>, restored: { getSnapshot(): unknown } | undefined): void {
    bindImplementations(actor, () => ({ actors: this.#implementations() }));
    this.#run = actor;
    if (restored) this.#recorder?.restoredAt(restored.getSnapshot() as Parameters<SessionRecorder['restoredAt']>[0]);
    actor.on('*', (event) => this.#onMachineEvent(event));
    let waiting = false;
    actor.subscribe({
      next: (snapshot) => {
        if (actor !== this.#run) return;
        const now = isAwaitingApproval(snapshot.value);
        if (now === waiting) return;
        waiting = now;
        this.#notify({ type: now ? 'run.waiting' : 'run.continued' });
      },
      // The session hears of the crash (`xstate.error.actor.run`); what the run said before it goes out first.
      error: () => this.#outbox.flush(),
    });
    this.#stable?.replaced();
  }

  /** The first requests went to the process that stopped: whoever answers now hears of them too. */
  announceRestoredApprovals(): void {
    const snapshot = this.#run?.getSnapshot();
    if (snapshot?.matches({ running: 'awaitingApproval' })) for (const request of pendingApprovalRequests(snapshot.context)) this.#outbox.push(request);
  }

  /** The active run will not end here (see the session's `abandonRun`): what observes it from the side ends what it has open. */
  runAbandoned(reason: RunAbandonment): void {
    this.#spans?.abandon(reason.kind);
  }

  /**
   * A crash inside the run chart (a bug, or a throwing custom actor) must not lose the history or
   * leave `run` pending: the run ends `failed` through the machine's own pure `endRun` (dangling
   * tool calls get results, `run-end` carries the result and its trace), and the session starts a
   * fresh run chart from that history.
   */
  endCrashedRun(error: unknown): RunStart {
    const crashed = this.#run;
    const context = crashed?.getSnapshot().context;
    if (!context) return { messages: this.messages, state: 'idle' };
    const runError: RunError = { kind: 'unknown', message: `loopchart internal error: ${errorMessage(error)}` };
    if (!context.run) return { messages: context.messages, state: 'idle' };
    const stopped = requestStop(context, 'failed', 'the agent crashed', runError).context;
    const ended = endRun(stopped, 'failed', runError, Date.now());
    // The events first, so that the fresh actor's first snapshot is the ended run's checkpoint and they go out once it is written.
    for (const event of ended.events) this.#onMachineEvent(event);
    // The run is over, but its `run-end` is delivered once that checkpoint is written: until then it counts as active.
    return { messages: ended.context.messages, state: 'ending' };
  }

  // --- the lease ---

  /** Acquires the session's lease (`lease` option); its epoch fences every write. */
  async acquireLease(): Promise<{ epoch: number }> {
    const { store, lease } = this.#options;
    if (!store?.leases || !lease) throw new Error('loopchart: acquireLease without a lease option');
    this.#lease = await acquireLease({ leases: store.leases, sessionId: this.#sessionId!, owner: lease.owner, ttlMs: this.#leaseTtlMs() });
    return { epoch: this.#lease.epoch };
  }

  /** Renews the lease until the returned function is called; `onLost` hears once that it is lost. */
  renewLease(onLost: (error: Parameters<Parameters<HeldLease['onLost']>[0]>[0]) => void): () => void {
    const lease = this.#lease;
    if (!lease) return () => undefined;
    const stopRenewing = renewLeasePeriodically(lease, renewalInterval(this.#leaseTtlMs()));
    const stopListening = lease.onLost(onLost);
    return () => {
      stopRenewing();
      stopListening();
    };
  }

  /** Lets the lease go; a store out of reach now cannot take the release: the lease lapses by itself. */
  async releaseLease(): Promise<void> {
    await this.#lease?.release().catch(() => undefined);
  }

  /** The epoch of the lease acquired, if any (also once it is lost). */
  get epoch(): number | undefined {
    return this.#lease?.epoch;
  }

  /** Whether what the agent does now is the session's: `held`, `unverified` (past its time to live: `confirmLease()` tells) or `lost`. */
  leaseStatus(): 'held' | 'unverified' | 'lost' {
    const lease = this.#lease;
    return !lease ? 'held' : lease.lost ? 'lost' : lease.isCurrent() ? 'held' : 'unverified';
  }

  /** Resolves true when the lease is (still, or again) held, false when it is lost. */
  confirmLease(): Promise<boolean> {
    return this.#lease ? this.#lease.ensureHeld().then(() => true, () => false) : Promise.resolve(true);
  }

  #leaseTtlMs(): number {
    return this.#options.lease?.ttlMs ?? 30_000;
  }

  /**
   * How long one store call may take: `timeout.storeMs`, else 30 s. Not the lease's time to live,
   * which may be far shorter than a large session's read: a store that stalls loses the lease anyway.
   */
  #storeCallMs(): number {
    const { timeout } = this.#options;
    return (typeof timeout === 'object' ? timeout.storeMs : undefined) ?? 30_000;
  }

  // --- the session's writer ---

  /** Reads the session: undefined when the store has none by this id (a new session), else where its run chart starts. */
  async loadSession(): Promise<RunStart | undefined> {
    const store = this.#store!;
    const sessionId = this.#sessionId!;
    const log = await store.read(sessionId);
    if (!log) return undefined;
    for (const warning of log.warnings) this.#outbox.push({ type: 'session-warning', sessionId, message: warning });
    const { forkedFrom } = log.header;
    if (forkedFrom !== undefined && log.records.length === 0) {
      // Opened as it is, it would be an empty session, and its first run would write over the fork that never finished.
      throw new SessionFormatError(
        `session ${sessionId} is a fork of session ${forkedFrom.sessionId} at checkpoint ${forkedFrom.checkpoint} whose records were never written: call forkSession again with this sessionId to finish it`,
      );
    }
    const replayed = replaySession(log.records, undefined, `session ${sessionId}`);
    // A version-1 session stays readable by the loopchart that wrote it: it gets no run records.
    const runRecords = log.header.version >= 2 ? this.#journal : undefined;
    this.#recorder = new SessionRecorder(store, sessionId, { ...replayed, version: log.version, ...this.#fence() }, this.#traceContextOf, this.#retryWrite, runRecords);
    if (!replayed.last) return { messages: replayed.messages, state: 'idle' };
    checkRestorable(replayed.last.snapshot, sessionId, replayed.last.id, replayed.last.state);
    const snapshot = restoreSnapshot(replayed.last.snapshot, replayed.messages, this.#config);
    if (replayed.last.state === 'idle') return { messages: replayed.messages, snapshot, state: 'idle' };
    const { runId, traceContext } = replayed.last;
    if (runId !== undefined && traceContext !== undefined) this.#spans?.resumeFrom(runId, traceContext);
    return { messages: replayed.messages, snapshot, state: replayed.last.state === 'running.awaitingApproval' ? 'waiting' : 'running' };
  }

  /** Starts a new session in the store. */
  async createSession(): Promise<RunStart> {
    const store = this.#store!;
    const sessionId = this.#sessionId!;
    const version = await store.create(sessionHeader(sessionId));
    this.#recorder = new SessionRecorder(store, sessionId, { messages: [], checkpoints: [], ...(version !== undefined ? { version } : {}), ...this.#fence() }, this.#traceContextOf, this.#retryWrite, this.#journal);
    return { messages: this.#options.messages ?? [], state: 'idle' };
  }

  #fence(): { epoch?: number } {
    return this.#lease ? { epoch: this.#lease.epoch } : {};
  }

  /** Writes the run chart's step boundaries as its snapshots pass; `onFailure` hears of a write that failed. Returns the unsubscribe. */
  writeBoundaries(onFailure: (error: unknown) => void): () => void {
    const recorder = this.#recorder;
    const actor = this.#run;
    if (!recorder || !actor) return () => undefined;
    const observe = () => {
      const write = recorder.observe(actor.getSnapshot(), () => persistedWithoutHistory(actor));
      write?.catch(onFailure);
      this.#outbox.settleMacrostep(write);
    };
    // The boundary the run chart may have reached as it started (a crashed run's end) is written first.
    observe();
    const subscription = actor.subscribe({ next: observe, error: () => undefined });
    return () => subscription.unsubscribe();
  }

  /** The session's step boundaries so far, oldest first. */
  get checkpoints(): CheckpointInfo[] {
    return this.#recorder?.checkpoints ?? [];
  }

  /**
   * Resolves once every sub-agent started by the session's tool calls has ended and been disposed:
   * their actors are the session's children, and a child that ended after its parent closed would
   * tell its end to a stopped actor.
   */
  async subagentsEnded(): Promise<void> {
    while (this.#subagents.size > 0) await Promise.all(this.#subagents);
  }

  /** Resolves once every write started so far has landed or failed. */
  settled(): Promise<void> {
    return this.#recorder?.settled() ?? Promise.resolve();
  }

  /** Why the session's last step boundary is not in the store, if it is not (read after `settled()`). */
  get writeFailure(): unknown {
    return this.#recorder?.writeFailure;
  }

  /** Nothing more is written: later boundaries fail at once with `reason`. */
  closeWriter(reason: Error): void {
    this.#recorder?.close(reason);
  }

  /** Whether an input with this request id was applied to the session (a checkpoint recorded it, or the next one will). */
  hasApplied(requestId: string): boolean {
    return this.#recorder?.hasApplied(requestId) ?? false;
  }

  /** The input with this request id is being applied: the next checkpoint stores it. */
  noteRequest(requestId: string): void {
    this.#recorder?.noteRequest(requestId);
  }

  /**
   * A step boundary could not be written, or the lease is lost: a `session-warning` says why, once
   * for each cause (after a lost lease, every later boundary fails with that same error).
   */
  warnOfWriteFailure(error: unknown): string {
    const message = `writing the session failed: ${errorMessage(error)}`;
    if (error !== this.#warnedOf) this.#outbox.push({ type: 'session-warning', sessionId: this.#sessionId!, message });
    this.#warnedOf = error;
    return message;
  }

  /**
   * Resolves when a model call or a tool may start: the session's last step boundary is in the
   * store and the lease (if any) is still held. Otherwise the run has been told to stop (`failed`,
   * `session-write`) and this rejects, so the effect never starts: a refused write or a lost lease
   * is never followed by more work that a resumed run would do again.
   */
  readonly #admitEffect = async (): Promise<void> => {
    // The boundary just entered is handed to the writer when its macrostep ends, after the actor that asks has started.
    await Promise.resolve();
    await this.#recorder?.settled();
    const failure = this.#recorder?.writeFailure;
    if (failure !== undefined) throw failure instanceof Error ? failure : new Error(errorMessage(failure));
    await this.#lease?.ensureHeld();
  };

  /** A write that failed on a cut connection (or found no answer in time) is tried again while the lease holds (or, without a lease, for `timeout.storeMs`, 30 s by default). */
  readonly #retryWrite = async (error: unknown, _attempt: number, elapsedMs: number): Promise<boolean> => {
    if (!isConnectionError(error)) return false;
    if (!this.#lease) return elapsedMs < this.#storeCallMs();
    await this.#lease.ensureHeld();
    return true;
  };

  /** The root span of a run telemetry records, for the session's checkpoints. */
  readonly #traceContextOf = (runId: string) => this.#spans?.traceContext(runId);

  // --- events ---

  /** This agent's actor implementations, built when its actor first invokes one (an idle agent never needs them). */
  #implementations() {
    return (this.#actors ??= this.#setup.implementations({
      emit: (event) => {
        // A call's warnings belong in the trace; the other actor events (deltas, tool input) do not.
        if (event.type === 'model-call-start') this.#observer.event(event);
        this.#outbox.push(event);
      },
      isHeard: () => this.#subject.observed,
      ...(this.#options.store ? { admit: this.#admitEffect } : {}),
      runSteps: () => ({ steps: this.#stepResults?.steps ?? [], responseMessages: this.#stepResults?.responseMessages ?? [] }),
      traceHook: (timing) => this.#observer.hook(timing),
      depth: this.#embedding.depth,
      subagents: this.#subagentHome,
      ...(this.#spans ? { runToolCall: this.#spans.runToolCall } : {}),
    }).actors);
  }

  #createPlaceholder(): Actor<AgentMachine> {
    const actor = createActor(sharedAgentMachine, { input: { messages: this.#options.messages ?? [], config: this.#config } });
    bindImplementations(actor, () => ({ actors: this.#implementations() }));
    return actor;
  }

  /** An event the run chart emitted: traced, and with `run-end` the run's trace is attached. */
  #onMachineEvent(event: AgentEvent): void {
    this.#observer.event(event);
    const trace = event.type === 'run-end' ? this.#tracer.takeFinished() : undefined;
    if (event.type === 'run-end') {
      if (trace) this.#journal?.noteTrace(trace);
      this.#recorder?.noteRunEnd(event.result.outcome, event.runId);
      if (trace) {
        event.result.trace = trace;
        this.#emitMachineEvent({ type: 'trace', runId: event.runId, trace });
      }
    }
    this.#emitMachineEvent(event);
  }

  /** An event from the machine: with a store it waits for the macrostep's write. */
  #emitMachineEvent(event: AgentEvent): void {
    if (this.#recorder) this.#outbox.enqueue(event);
    else this.#deliver(event);
  }

  #deliver(given: AgentEvent): void {
    const event = redactValue(given, this.#secrets);
    this.#recordStep(event);
    // A request no one hears of would wait for ever in silence; with approvalTimeoutMs the wait ends by itself.
    warnOfUnheardApproval(event, this.#subject.observed, this.#options.approvalTimeoutMs);
    if (event.type === 'run-end') this.#notify({ type: 'run.ended', result: event.result });
    this.#subject.next(event);
  }

  #recordStep(event: AgentEvent): void {
    if (event.type === 'run-start') this.#stepResults = new StepResultRecorder(this.#options.tools ?? {});
    const recorder = (this.#stepResults ??= new StepResultRecorder(this.#options.tools ?? {}));
    recorder.event(event);
    if (event.type !== 'run-end') return;
    this.#stepResults = undefined;
    Object.assign(event.result, { steps: recorder.steps, ...runResultStepFields(recorder.steps) });
  }
}
