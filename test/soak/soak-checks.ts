/**
 * The soak's verdict, a pure function of what it observed (`SoakObservations`):
 *
 * - **effects**: each tool call's effect happens once. A second effect is allowed only when, after
 *   the first run started and before the second did, the worker of the first was SIGKILLed (or
 *   died on its own, reported under `workers`), SIGSTOPped (past its lease) or cut off from Postgres, and the first one's result was not
 *   stored before the second started: its result could not be stored (or its lease lapsed, and a
 *   run stops then), and a worker in that state cannot be told from a dead one — at least once, as
 *   docs/scale-out.md says for a tool running when its worker died. Those are counted apart, by
 *   cause. Anything else — a re-run after the result was stored, two runs at once in one process,
 *   a re-run with no kill, pause or cut in between — is a violation, as is a tool starting while
 *   another of the same session runs in the same process.
 * - **inputs**: every input the client sent and `send` accepted is applied exactly once (a prompt,
 *   steer or follow-up: its message is in the history once; an answer or abort: one checkpoint
 *   records its request id) or listed in a turn's `rejected` — of its own session. An applied
 *   abort ends its run `aborted`.
 * - **histories**: every tool call has exactly one result, after it; every result has a call; a
 *   result that says the tool ran has an effect.
 * - **terminal**: every session ends idle with a run outcome and no turn left, or waits for
 *   approval with a turn waiting; no turn failed.
 * - **epochs**: the lease epochs in each session's Redis stream never go down.
 * - **workers**: no worker process died that the harness did not kill.
 *
 * @example
 * const verdict = checkSoak(observations);
 * if (verdict.violations.length > 0) process.exitCode = 1;
 */
import type { ModelMessage } from 'ai';
import type { CheckpointRecord, SessionRecord } from '../../src/persistence/session-store.js';
import { replaySession } from '../../src/persistence/session-replay.js';
import { parsePlan } from './soak-plan.js';
import type { SentInput, SoakObservations, TurnState, WorkerObservation } from './soak-observations.js';

export type CheckName = 'effects' | 'inputs' | 'histories' | 'terminal' | 'epochs' | 'workers';

export interface Violation {
  check: CheckName;
  sessionId?: string;
  detail: string;
}

/** A second effect of a call whose first ran on a worker killed, paused or cut off from Postgres before its result was stored. */
export interface ExcusedDuplicate {
  /** `died`: the worker died on its own (a violation of its own, under `workers`). */
  cause: 'killed' | 'died' | 'paused' | 'cut';
  sessionId: string;
  toolCallId: string;
  detail: string;
}

export interface SoakVerdict {
  counts: {
    toolCalls: number;
    effects: number;
    duplicatesKilled: number;
    duplicatesDied: number;
    duplicatesPaused: number;
    duplicatesCut: number;
    duplicatesOther: number;
    inputsSent: number;
    inputsAccepted: number;
    inputsApplied: number;
    inputsRejected: number;
    inputsLost: number;
    inputsDoubled: number;
    sessions: number;
    sessionsTerminal: number;
    historiesValid: number;
    streamEntries: number;
    epochRegressions: number;
    workersStarted: number;
    workersKilled: number;
    workersDied: number;
    pauses: number;
    cuts: number;
    stalls: number;
  };
  violations: Violation[];
  excused: ExcusedDuplicate[];
}

export function checkSoak(observed: SoakObservations): SoakVerdict {
  const violations: Violation[] = [];
  const histories = new Map(observed.final.sessions.map(({ sessionId, records }) => [sessionId, records ? readHistory(records) : undefined]));
  const effects = checkEffects(observed, histories, violations);
  const inputs = checkInputs(observed, histories, violations);
  const historiesValid = checkHistories(observed, histories, violations);
  const terminal = checkTerminal(observed, histories, violations);
  const epochs = checkEpochs(observed, violations);
  const died = checkWorkers(observed, violations);
  const { harness } = observed;
  return {
    counts: {
      ...effects.counts,
      ...inputs,
      sessions: observed.final.sessions.length,
      sessionsTerminal: terminal,
      historiesValid,
      ...epochs,
      workersStarted: harness.workers.length,
      workersKilled: harness.kills.length,
      workersDied: died,
      pauses: harness.pauses.length,
      cuts: harness.windows.filter((window) => window.kind === 'cut').length,
      stalls: harness.windows.filter((window) => window.kind === 'stall').length,
    },
    violations,
    excused: effects.excused,
  };
}

/** A session's history as the store has it, and what its checkpoints say. */
interface History {
  messages: ModelMessage[];
  checkpoints: CheckpointRecord[];
  /** When each tool call's result was first in a stored checkpoint (the checkpoint's `at`). */
  resultStoredAt: Map<string, number>;
  error?: string;
}

function readHistory(records: SessionRecord[]): History {
  const resultStoredAt = new Map<string, number>();
  // The messages as the records build them, to see which checkpoint first holds each result.
  let messages: ModelMessage[] = [];
  try {
    for (const record of records) {
      if (record.type === 'history') messages = [...record.messages];
      else if (record.type === 'message') {
        messages.length = Math.min(messages.length, record.index);
        messages.push(record.message);
      } else if (record.type === 'checkpoint') {
        for (const message of messages.slice(0, record.messageCount)) {
          for (const part of partsOf(message)) {
            if (part.type === 'tool-result' && !resultStoredAt.has(part.toolCallId)) resultStoredAt.set(part.toolCallId, Date.parse(record.at));
          }
        }
      }
    }
    const replayed = replaySession(records);
    return { messages: replayed.messages, checkpoints: replayed.checkpoints, resultStoredAt };
  } catch (error) {
    return { messages: [], checkpoints: [], resultStoredAt, error: error instanceof Error ? error.message : String(error) };
  }
}

type Part = { type: string; toolCallId: string; output?: unknown; text?: string };

function partsOf(message: ModelMessage): Part[] {
  return typeof message.content === 'string' ? [] : (message.content as Part[]);
}

function textOf(message: ModelMessage): string {
  return typeof message.content === 'string' ? message.content : partsOf(message).map((part) => (part.type === 'text' ? (part.text ?? '') : '')).join('');
}

const clock = (harness: SoakObservations['harness'], at: number) => `+${((at - harness.startedAt) / 1000).toFixed(3)} s`;

function checkEffects(observed: SoakObservations, histories: Map<string, History | undefined>, violations: Violation[]) {
  const { harness } = observed;
  const excused: ExcusedDuplicate[] = [];
  const byCall = new Map<string, Array<Extract<WorkerObservation, { kind: 'effect' }>>>();
  for (const observation of observed.workers) {
    if (observation.kind === 'tool-start' && observation.alongside > 0) {
      violations.push({
        check: 'effects',
        sessionId: observation.session,
        detail: `tool call ${observation.toolCallId} started at ${clock(harness, observation.t)} on ${observation.worker} (pid ${observation.pid}, last epoch seen ${observation.epoch}) while ${observation.alongside} other tool run(s) of the session were still running in that process: two attempts of one session at once`,
      });
    }
    if (observation.kind !== 'effect') continue;
    const key = `${observation.session} ${observation.toolCallId}`;
    byCall.set(key, [...(byCall.get(key) ?? []), observation]);
  }
  let duplicatesOther = 0;
  for (const runs of byCall.values()) {
    runs.sort((a, b) => a.started - b.started || a.t - b.t);
    for (let i = 1; i < runs.length; i++) {
      const first = runs[i - 1]!;
      const again = runs[i]!;
      const storedAt = histories.get(again.session)?.resultStoredAt.get(again.toolCallId);
      const what = `tool call ${again.toolCallId}: effect on ${first.worker} (pid ${first.pid}, last epoch seen ${first.epoch}, started ${clock(harness, first.started)}) and again on ${again.worker} (pid ${again.pid}, last epoch seen ${again.epoch}, started ${clock(harness, again.started)})`;
      const violation = (why: string) => {
        duplicatesOther++;
        violations.push({ check: 'effects', sessionId: again.session, detail: `${what}: ${why}` });
      };
      if (storedAt !== undefined && storedAt < again.started) {
        violation(`its result was stored at ${clock(harness, storedAt)}, before the second run started`);
        continue;
      }
      if (first.pid === again.pid && again.started < first.t) {
        violation('two runs at once in one process');
        continue;
      }
      const between = (at: number) => at >= first.started && at <= again.started;
      const kill = harness.kills.find((entry) => entry.worker === first.worker && between(entry.at));
      const exit = harness.workers.find((worker) => worker.id === first.worker)?.exit;
      const died = exit && !exit.byHarness && between(exit.at) ? exit : undefined;
      const pause = harness.pauses.find((entry) => entry.worker === first.worker && between(entry.from));
      const cut = harness.windows.find((entry) => entry.target === 'postgres' && entry.from <= again.started && entry.to >= first.started);
      const excuse = (cause: ExcusedDuplicate['cause'], why: string) => excused.push({ cause, sessionId: again.session, toolCallId: again.toolCallId, detail: `${what}; ${why}` });
      if (kill) excuse('killed', `${first.worker} was killed at ${clock(harness, kill.at)}`);
      else if (died) excuse('died', `${first.worker} died on its own at ${clock(harness, died.at)}`);
      else if (pause) excuse('paused', `${first.worker} was paused ${clock(harness, pause.from)} to ${clock(harness, pause.to)}`);
      else if (cut) excuse('cut', `Postgres was ${cut.kind === 'cut' ? `cut (${cut.mode})` : 'stalled'} ${clock(harness, cut.from)} to ${clock(harness, cut.to)}`);
      else violation(first.pid === again.pid ? 'one process ran it twice, with no kill, pause or cut in between' : `${first.worker} was neither killed nor paused, nor cut off from Postgres, in between`);
    }
  }
  return {
    excused,
    counts: {
      toolCalls: byCall.size,
      effects: [...byCall.values()].reduce((sum, runs) => sum + runs.length, 0),
      duplicatesKilled: excused.filter((entry) => entry.cause === 'killed').length,
      duplicatesDied: excused.filter((entry) => entry.cause === 'died').length,
      duplicatesPaused: excused.filter((entry) => entry.cause === 'paused').length,
      duplicatesCut: excused.filter((entry) => entry.cause === 'cut').length,
      duplicatesOther,
    },
  };
}

/** How often the message of this tagged input is in the history, as a user message. */
function copiesInHistory(history: History | undefined, text: string): number {
  const tag = parsePlan(text)?.tag;
  if (!history || tag === undefined) return 0;
  return history.messages.filter((message) => message.role === 'user' && parsePlan(textOf(message))?.tag === tag).length;
}

function messageOf(sent: SentInput): string | undefined {
  const { input } = sent;
  if (input.type === 'prompt') return typeof input.prompt === 'string' ? input.prompt : undefined;
  if (input.type === 'steer' || input.type === 'follow-up') return typeof input.message === 'string' ? input.message : undefined;
  return undefined;
}

function checkInputs(observed: SoakObservations, histories: Map<string, History | undefined>, violations: Violation[]) {
  const { turns } = observed.final;
  const turnById = new Map(turns.map((turn) => [turn.workflowId, turn]));
  const rejections = (requestId: string) => turns.flatMap((turn) => (turn.rejected ?? []).filter((entry) => entry.requestId === requestId).map((entry) => ({ turn, reason: entry.reason })));
  const notings = (requestId: string) =>
    [...histories].flatMap(([sessionId, history]) => (history?.checkpoints ?? []).filter((checkpoint) => checkpoint.requestIds?.includes(requestId)).map((checkpoint) => ({ sessionId, checkpoint })));
  const counts = { inputsSent: observed.harness.sends.length, inputsAccepted: 0, inputsApplied: 0, inputsRejected: 0, inputsLost: 0, inputsDoubled: 0 };
  for (const sent of observed.harness.sends) {
    const add = (detail: string) => violations.push({ check: 'inputs', sessionId: sent.sessionId, detail: `${sent.input.type} ${sent.requestId}: ${detail}` });
    if (sent.acceptedAt === undefined) {
      add(`never accepted by sessionClient.send after ${sent.attempts} attempt(s): ${sent.error ?? 'no answer'}`);
      continue;
    }
    counts.inputsAccepted++;
    const rejected = rejections(sent.requestId);
    const noted = notings(sent.requestId);
    const elsewhere = [...rejected.filter(({ turn }) => turn.sessionId !== sent.sessionId).map(({ turn }) => `rejected by turn ${turn.workflowId}`), ...noted.filter(({ sessionId }) => sessionId !== sent.sessionId).map(({ sessionId }) => `applied to session ${sessionId}`)];
    if (elsewhere.length > 0) add(`reached another session: ${elsewhere.join('; ')}`);
    const rejectedHere = rejected.filter(({ turn }) => turn.sessionId === sent.sessionId);
    const notedHere = noted.filter(({ sessionId }) => sessionId === sent.sessionId);
    const message = messageOf(sent);
    const applied = message !== undefined ? copiesInHistory(histories.get(sent.sessionId), message) : notedHere.length;
    const where = () => {
      const turn = sent.turn !== undefined ? turnById.get(sent.turn) : undefined;
      const recorded = message !== undefined && notedHere.length > 0 ? `; its request id is recorded as applied (checkpoint ${notedHere.map(({ checkpoint }) => checkpoint.id).join(', ')}) but its message is not in the history` : '';
      return `accepted at ${clock(observed.harness, sent.acceptedAt!)} by turn ${sent.turn ?? '?'} (${turn ? `${turn.status}${turn.error ? `: ${turn.error}` : ''}` : 'not found'})${recorded}`;
    };
    if (applied === 0 && rejectedHere.length === 0) {
      counts.inputsLost++;
      add(`neither applied nor rejected: ${where()}`);
      continue;
    }
    if (applied > 1 || (applied > 0 && rejectedHere.length > 0)) {
      counts.inputsDoubled++;
      add(`applied ${applied} time(s) and rejected ${rejectedHere.length} time(s) (${rejectedHere.map(({ reason }) => reason).join('; ')}): ${where()}`);
      continue;
    }
    if (applied === 1) counts.inputsApplied++;
    else counts.inputsRejected++;
    if (sent.input.type === 'abort' && applied === 1) {
      const checkpoints = histories.get(sent.sessionId)?.checkpoints ?? [];
      const from = checkpoints.indexOf(notedHere[0]!.checkpoint);
      const end = checkpoints.slice(from).find((checkpoint) => checkpoint.outcome !== undefined);
      if (end?.outcome !== 'aborted') add(`applied (checkpoint ${notedHere[0]!.checkpoint.id}) but its run ${end ? `ended ${end.outcome}` : 'never ended'}`);
    }
  }
  return counts;
}

function checkHistories(observed: SoakObservations, histories: Map<string, History | undefined>, violations: Violation[]): number {
  const effects = new Set(observed.workers.flatMap((observation) => (observation.kind === 'effect' ? [`${observation.session} ${observation.toolCallId}`] : [])));
  let valid = 0;
  for (const [sessionId, history] of histories) {
    if (!history) continue;
    const problems: string[] = [];
    if (history.error) problems.push(`cannot be replayed: ${history.error}`);
    const calls = new Map<string, number>();
    const results = new Map<string, number>();
    history.messages.forEach((message, index) => {
      for (const part of partsOf(message)) {
        if (part.type === 'tool-call') calls.set(part.toolCallId, index);
        if (part.type !== 'tool-result') continue;
        results.set(part.toolCallId, (results.get(part.toolCallId) ?? 0) + 1);
        const call = calls.get(part.toolCallId);
        if (call === undefined) problems.push(`result of ${part.toolCallId} without a call before it`);
        if (JSON.stringify(part.output ?? '').includes(`${part.toolCallId} done`) && !effects.has(`${sessionId} ${part.toolCallId}`)) {
          problems.push(`result of ${part.toolCallId} says it ran, but no worker had its effect`);
        }
      }
    });
    // A run that waits for approval has the calls of its last step without results yet.
    const waiting = history.checkpoints.at(-1)?.state === 'running.awaitingApproval' ? new Set(partsOf(history.messages.at(-1)!).map((part) => part.toolCallId)) : new Set<string>();
    for (const toolCallId of calls.keys()) {
      const count = results.get(toolCallId) ?? 0;
      if (count !== 1 && !(count === 0 && waiting.has(toolCallId))) problems.push(`tool call ${toolCallId} has ${count} results`);
    }
    if (problems.length === 0) valid++;
    for (const problem of problems) violations.push({ check: 'histories', sessionId, detail: problem });
  }
  return valid;
}

const ACTIVE = new Set(['PENDING', 'ENQUEUED']);

function checkTerminal(observed: SoakObservations, histories: Map<string, History | undefined>, violations: Violation[]): number {
  const turnsOf = (sessionId: string): TurnState[] => observed.final.turns.filter((turn) => turn.sessionId === sessionId);
  let terminal = 0;
  for (const turn of observed.final.turns) {
    if (ACTIVE.has(turn.status) || turn.status === 'SUCCESS') continue;
    violations.push({ check: 'terminal', sessionId: turn.sessionId, detail: `turn ${turn.workflowId} (${turn.inputType}) ended ${turn.status}${turn.error ? `: ${turn.error}` : ''}` });
  }
  for (const [sessionId, history] of histories) {
    const accepted = observed.harness.sends.some((sent) => sent.sessionId === sessionId && sent.acceptedAt !== undefined);
    const active = turnsOf(sessionId).filter((turn) => ACTIVE.has(turn.status));
    const activeText = active.map((turn) => `${turn.workflowId} ${turn.status}`).join(', ');
    const fail = (detail: string) => violations.push({ check: 'terminal', sessionId, detail });
    const last = history?.checkpoints.at(-1);
    if (!history) {
      if (accepted) fail(`no such session in the store, though inputs to it were accepted${active.length ? `; turns left: ${activeText}` : ''}`);
      else terminal++;
      continue;
    }
    if (!last) {
      fail(`no checkpoint${active.length ? `; turns left: ${activeText}` : ''}`);
      continue;
    }
    if (last.state === 'idle') {
      if (!history.checkpoints.some((checkpoint) => checkpoint.outcome !== undefined)) fail('idle without any run outcome');
      else if (active.length > 0) fail(`idle, but turns did not end: ${activeText}`);
      else terminal++;
      continue;
    }
    if (last.state === 'running.awaitingApproval') {
      if (active.some((turn) => turn.status === 'PENDING')) terminal++;
      else fail(`waits for approval, but no turn waits for the answer${active.length ? ` (${activeText})` : ''}`);
      continue;
    }
    fail(`left in ${last.state} (checkpoint ${last.id}, step ${last.step}) with ${active.length ? `turns ${activeText}` : 'no turn in progress'}`);
  }
  return terminal;
}

function checkEpochs(observed: SoakObservations, violations: Violation[]) {
  let regressions = 0;
  let entries = 0;
  for (const stream of observed.final.streams) {
    let highest = -Infinity;
    let highestType = '';
    const seen: string[] = [];
    for (const entry of stream.entries) {
      entries++;
      if (entry.epoch < highest) {
        regressions++;
        if (seen.length < 3) seen.push(`${entry.type} with epoch ${entry.epoch} (entry ${entry.id}) after ${highestType} with epoch ${highest}`);
      } else if (entry.epoch > highest) {
        highest = entry.epoch;
        highestType = entry.type;
      }
    }
    const count = seen.length;
    if (count > 0) violations.push({ check: 'epochs', sessionId: stream.sessionId, detail: `the stream's epoch goes down: ${seen.join('; ')}` });
  }
  return { streamEntries: entries, epochRegressions: regressions };
}

function checkWorkers(observed: SoakObservations, violations: Violation[]): number {
  let died = 0;
  for (const worker of observed.harness.workers) {
    if (!worker.exit || worker.exit.byHarness || worker.readyAt === undefined) continue;
    died++;
    const how = worker.exit.signal ? `signal ${worker.exit.signal}` : `exit code ${worker.exit.code}`;
    violations.push({ check: 'workers', detail: `${worker.id} (pid ${worker.pid}) died on its own at ${clock(observed.harness, worker.exit.at)} (${how}):\n      ${worker.exit.output.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('READY ')).slice(0, 20).join('\n      ')}` });
  }
  return died;
}
