import type { Outcome } from '../core/result.js';
import type { AgentContext } from '../machine/context.js';
import type { MessageHistory, MessageList } from '../core/message-history.js';
import { stateName } from '../machine/state-name.js';
export { stateName } from '../machine/state-name.js';
import { SessionConflictError, type CheckpointRecord, type SessionRecord, type SessionStore, type SessionVersion, type TraceContextRecord } from './session-store.js';

/**
 * Whether a write that failed with `error` is tried again (after `attempt` tries, `elapsedMs` since
 * the first): for a connection that was cut while the lease still holds, say. Resolving false (or
 * rejecting) gives the write up.
 */
export type WriteRetryPolicy = (error: unknown, attempt: number, elapsedMs: number) => Promise<boolean>;

/** What `agent.checkpoints()` lists: one step boundary of the session (a checkpoint record without its snapshot). */
export type CheckpointInfo = Omit<CheckpointRecord, 'type' | 'snapshot'>;

/** What a session keeps of its runs besides messages and checkpoints (the time-travel records), handed over at each checkpoint. */
export interface RunRecordSource {
  /** The records collected since the last call. */
  drain(): SessionRecord[];
}

interface ObservedSnapshot {
  value: unknown;
  context: AgentContext;
  hasTag(tag: string): boolean;
}


/**
 * Writes a session as the agent runs: at every step boundary — each state the
 * machine tags `checkpoint` (a new LLM call or attempt about to start,
 * approvals awaited, a retry scheduled) and a run ended — the messages added since the last boundary and a checkpoint. Only
 * new lines are written, so a boundary costs the same however long the
 * history is.
 */
export class SessionRecorder {
  private written: MessageList;
  private lastKey: string | undefined;
  private ended: { outcome: Outcome; runId: string } | undefined;
  private readonly list: CheckpointInfo[];
  private chain: Promise<void> = Promise.resolve();
  /** The session as this writer last read or wrote it: the store refuses an append once someone else wrote. */
  private version: SessionVersion | undefined;
  /** The epoch of the lease this writer holds: the store refuses its appends once another owner took the lease. */
  private readonly epoch: number | undefined;
  /** Request ids of inputs applied since the last checkpoint: the next one records them. */
  private requests: string[] = [];
  /** Every request id a checkpoint of this session recorded. */
  private readonly applied: Set<string>;
  /** Why the last write did not land, while it did not: the store holds the session only up to the checkpoint before it. */
  private failure: unknown;
  /** Set once nothing more may be written (the lease is lost): every later write fails with it at once. */
  private closedBy: Error | undefined;
  /** Rejects with `closedBy` when the writer is closed: a store call in flight then is no longer waited for. */
  private readonly closing: Promise<never>;
  private rejectClosing: (reason: Error) => void = () => undefined;
  /** Run records of checkpoints whose write failed: they go with the next one. */
  private unsentRunRecords: SessionRecord[] = [];

  /**
   * `traceContextOf` gives the span of a run that telemetry records, for its checkpoints to carry.
   */
  constructor(
    private readonly store: SessionStore,
    private readonly sessionId: string,
    restored: { messages: MessageList; checkpoints: CheckpointRecord[]; version?: SessionVersion | undefined; epoch?: number },
    private readonly traceContextOf: (runId: string) => TraceContextRecord | undefined = () => undefined,
    private readonly retryWrite: WriteRetryPolicy = async () => false,
    /** The run records (timeline, model calls, trace) written with each checkpoint, before it. */
    private readonly runRecords?: RunRecordSource,
  ) {
    this.closing = new Promise<never>((_, reject) => (this.rejectClosing = reject));
    this.closing.catch(() => undefined);
    this.written = restored.messages;
    this.version = restored.version;
    this.epoch = restored.epoch;
    this.applied = new Set(restored.checkpoints.flatMap((checkpoint) => checkpoint.requestIds ?? []));
    this.list = restored.checkpoints.map(checkpointInfo);
    const last = restored.checkpoints.at(-1);
    if (last) this.lastKey = `${last.state}|${last.runId ?? ''}|${last.step}|restored`;
  }

  get checkpoints(): CheckpointInfo[] {
    return this.list.slice();
  }

  /** The agent restarted from the last checkpoint: that snapshot is already written, so it is not a new boundary. */
  restoredAt(snapshot: ObservedSnapshot): void {
    this.lastKey = boundaryKey(snapshot, stateName(snapshot.value), undefined) ?? this.lastKey;
  }

  /** Resolves once every write started so far has landed or failed. */
  settled(): Promise<void> {
    return this.chain;
  }

  /** Why the last write did not land, if it did not (see `settled()` for the writes in flight); undefined once a later one lands. */
  get writeFailure(): unknown {
    return this.failure;
  }

  /**
   * No more writes: the lease is gone. Later boundaries fail at once with `reason`, and nothing
   * reaches the store; a write in flight fails with it now rather than when (if ever) the store
   * answers, so a store that stopped answering holds neither the run's events nor its end.
   */
  close(reason: Error): void {
    this.closedBy ??= reason;
    this.rejectClosing(this.closedBy);
  }

  /** A store call, given up on when the writer is closed. */
  private untilClosed<T>(call: Promise<T>): Promise<T> {
    return Promise.race([call, this.closing]);
  }

  /** Whether an input with this request id was applied: a checkpoint recorded it, or it waits for the next one. */
  hasApplied(requestId: string): boolean {
    return this.applied.has(requestId) || this.requests.includes(requestId);
  }

  /** An input with this request id was applied: the next checkpoint records it. */
  noteRequest(requestId: string): void {
    this.requests.push(requestId);
  }

  /** The outcome of the run that just ended, for the checkpoint taken as the machine returns to idle. */
  noteRunEnd(outcome: Outcome, runId: string): void {
    this.ended = { outcome, runId };
  }

  /**
   * Called after every macrostep. Returns the write's promise at a step
   * boundary (writes are chained, in order), undefined elsewhere.
   */
  observe(snapshot: ObservedSnapshot, persisted: () => unknown /* the checkpoint snapshot, history left out */): Promise<void> | undefined {
    const state = stateName(snapshot.value);
    const key = boundaryKey(snapshot, state, this.ended?.runId);
    if (key === undefined || key === this.lastKey) return undefined;
    this.lastKey = key;
    const messages = snapshot.context.messages;
    const run = snapshot.context.run;
    const traceContext = run ? this.traceContextOf(run.id) : undefined;
    const checkpoint: CheckpointRecord = {
      type: 'checkpoint',
      id: (this.list.at(-1)?.id ?? 0) + 1,
      at: new Date().toISOString(),
      state,
      ...(run ? { runId: run.id } : {}),
      step: run?.steps ?? 0,
      ...(state === 'idle' && this.ended ? { runId: this.ended.runId, outcome: this.ended.outcome } : {}),
      messageCount: messages.length,
      snapshot: persisted(),
      ...(this.requests.length > 0 ? { requestIds: this.requests } : {}),
      ...(traceContext !== undefined ? { traceContext } : {}),
    };
    this.requests = [];
    const drained = this.runRecords?.drain() ?? [];
    if (state === 'idle') this.ended = undefined;
    this.list.push(checkpointInfo(checkpoint));
    // Writes run one after another; what a write adds is decided when its turn comes, from what the
    // earlier ones really wrote, so a failed write's messages go out with the next one.
    const write = this.chain.then(async () => {
      if (this.closedBy) throw this.closedBy;
      const runRecords = [...this.unsentRunRecords, ...drained];
      this.unsentRunRecords = [];
      const version = await this.appendWithRetries([...this.messageRecords(messages), ...runRecords, checkpoint], checkpoint).catch((error: unknown) => {
        this.unsentRunRecords = runRecords;
        throw error;
      });
      if (version !== undefined) this.version = version;
      this.failure = undefined;
      this.written = messages;
      for (const requestId of checkpoint.requestIds ?? []) this.applied.add(requestId);
    });
    this.chain = write.catch((error: unknown) => {
      this.failure = error;
      // The inputs it recorded were not written: they go with the next checkpoint.
      this.requests.unshift(...(checkpoint.requestIds ?? []));
      const index = this.list.findIndex((info) => info.id === checkpoint.id);
      if (index >= 0) this.list.splice(index, 1);
    });
    return write;
  }

  /**
   * Appends, trying again while the retry policy allows (a cut connection while the lease holds).
   * A try whose reply was lost may have landed: when the next one finds the session moved on
   * (`SessionConflictError`), the session is read back, and if it ends with this very checkpoint
   * the write counts as done.
   */
  private async appendWithRetries(records: SessionRecord[], checkpoint: CheckpointRecord): Promise<SessionVersion | void> {
    const startedAt = Date.now();
    let uncertain = false;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.untilClosed(
          this.store.append(this.sessionId, records, {
            ...(this.version !== undefined ? { after: this.version } : {}),
            ...(this.epoch !== undefined ? { epoch: this.epoch } : {}),
          }),
        );
      } catch (error) {
        if (error === this.closedBy) throw error;
        if (uncertain && error instanceof SessionConflictError) {
          const landed = await this.landedVersion(checkpoint);
          if (landed !== undefined) return landed;
        }
        if (this.closedBy || !(await this.retryWrite(error, attempt, Date.now() - startedAt).catch(() => false))) throw error;
        uncertain = true;
        await new Promise((resolve) => setTimeout(resolve, Math.min(2_000, 100 * 2 ** (attempt - 1))));
        if (this.closedBy) throw this.closedBy;
      }
    }
  }

  /** The session's version when its last record is `checkpoint` (an earlier try of this write landed), else undefined. */
  private async landedVersion(checkpoint: CheckpointRecord): Promise<SessionVersion | undefined> {
    const log = await this.untilClosed(this.store.read(this.sessionId)).catch(() => undefined);
    const last = log?.records.at(-1);
    if (!log || last?.type !== 'checkpoint' || last.id !== checkpoint.id || last.at !== checkpoint.at || last.runId !== checkpoint.runId) return undefined;
    return log.version;
  }

  /** New messages as message records; a replaced history (a compaction summary) as one history record. */
  private messageRecords(messages: MessageHistory): SessionRecord[] {
    const previous = this.written;
    const kept = previous.length <= messages.length && (previous.length === 0 || messages.at(previous.length - 1) === previous.at(-1));
    if (!kept) return [{ type: 'history', messages: messages.slice() }];
    return messages.slice(previous.length).map((message, offset) => ({ type: 'message', index: previous.length + offset, message }));
  }
}

/** Which checkpoint a snapshot is, if any: the end of a run (back in idle), or a state tagged `checkpoint`. */
function boundaryKey(snapshot: ObservedSnapshot, state: string, endedRunId: string | undefined): string | undefined {
  const run = snapshot.context.run;
  if (!run) return endedRunId === undefined ? undefined : `idle|${endedRunId}`;
  if (!snapshot.hasTag('checkpoint')) return undefined;
  const answered = run.approvals?.filter((approval) => approval.answer !== undefined).length ?? 0;
  return `${state}|${run.id}|${run.steps}|${run.attempt}|${answered}`;
}

function checkpointInfo(record: CheckpointRecord): CheckpointInfo {
  const { type: _type, snapshot: _snapshot, ...info } = record;
  return info;
}
