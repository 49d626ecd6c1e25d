import { SessionFormatError, type SessionRecord } from './session-store.js';

/** The record types a session of the versions this loopchart reads may hold. */
const RECORD_TYPES = ['message', 'history', 'checkpoint', 'timeline', 'model-call', 'trace'] as const;

type Fields = Record<string, unknown>;

const isObject = (value: unknown): value is Fields => typeof value === 'object' && value !== null && !Array.isArray(value);
const isCount = (value: unknown): boolean => Number.isSafeInteger(value) && (value as number) >= 0;
const isTime = (value: unknown): boolean => typeof value === 'number' && Number.isFinite(value);
const shown = (value: unknown): string => (JSON.stringify(value) ?? String(value)).slice(0, 80);

/** Why `message` is not a model message as the history holds one, or undefined when it is one. */
function messageProblem(message: unknown): string | undefined {
  if (!isObject(message) || typeof message.role !== 'string') return `is not a message (an object with a role), but ${shown(message)}`;
  const { role, content } = message;
  if (role === 'tool' ? !Array.isArray(content) : typeof content !== 'string' && !Array.isArray(content)) {
    return `is a ${role} message whose content is ${shown(content)}, not ${role === 'tool' ? 'a list of parts' : 'text or a list of parts'}`;
  }
  return undefined;
}

/** Why a record of a known type lacks what the readers take from it, or undefined when it has it. */
function fieldsProblem(record: Fields): string | undefined {
  switch (record.type) {
    case 'message': {
      if (!isCount(record.index)) return `a message record's index must be a whole number, 0 or more, not ${shown(record.index)}`;
      const problem = messageProblem(record.message);
      return problem && `the message record's message ${problem}`;
    }
    case 'history': {
      if (!Array.isArray(record.messages)) return `a history record's messages must be a list, not ${shown(record.messages)}`;
      for (const [index, message] of record.messages.entries()) {
        const problem = messageProblem(message);
        if (problem) return `the history record's message ${index} ${problem}`;
      }
      return undefined;
    }
    case 'checkpoint': {
      if (!Number.isSafeInteger(record.id) || (record.id as number) < 1) return `a checkpoint's id must be a whole number, 1 or more, not ${shown(record.id)}`;
      for (const field of ['step', 'messageCount'] as const) {
        if (!isCount(record[field])) return `checkpoint ${String(record.id)}'s ${field} must be a whole number, 0 or more, not ${shown(record[field])}`;
      }
      if (typeof record.state !== 'string') return `checkpoint ${String(record.id)}'s state must be text, not ${shown(record.state)}`;
      if (typeof record.at !== 'string') return `checkpoint ${String(record.id)}'s at must be a date as text, not ${shown(record.at)}`;
      if (record.runId !== undefined && typeof record.runId !== 'string') return `checkpoint ${String(record.id)}'s runId must be text, not ${shown(record.runId)}`;
      const { snapshot } = record;
      if (!isObject(snapshot) || snapshot.value === undefined || !isObject(snapshot.context)) {
        return `checkpoint ${String(record.id)}'s snapshot is not a machine snapshot (an object with a value and a context), but ${shown(snapshot)}`;
      }
      return undefined;
    }
    case 'timeline': {
      if (typeof record.runId !== 'string' || !isTime(record.at) || !Array.isArray(record.points)) return 'a timeline record needs a runId (text), an at (ms) and a list of points';
      const bad = record.points.findIndex(
        (point: unknown) =>
          !Array.isArray(point) ||
          !isTime(point[0]) ||
          typeof point[1] !== 'string' ||
          typeof point[2] !== 'string' ||
          typeof point[3] !== 'string' ||
          !isTime(point[4]) ||
          (point[5] !== undefined && typeof point[5] !== 'string'),
      );
      return bad === -1 ? undefined : `the timeline record's point ${bad} is not [ms, event, from, to, step, guard?] but ${shown(record.points[bad])}`;
    }
    case 'model-call': {
      const { request, response, error } = record;
      if (typeof record.runId !== 'string' || !isCount(record.step) || !isCount(record.attempt) || !isTime(record.startedAt)) {
        return 'a model-call record needs a runId (text), a step and an attempt (whole numbers) and a startedAt (ms)';
      }
      if (!isObject(request) || !isCount(request.messageCount) || !Array.isArray(request.tools) || !isObject(request.settings)) {
        return "the model-call record's request needs a messageCount, a list of tools and the settings";
      }
      if (response !== undefined && (!isObject(response) || typeof response.text !== 'string' || !Array.isArray(response.toolCalls))) {
        return "the model-call record's response needs a text and a list of toolCalls";
      }
      if (error !== undefined && (!isObject(error) || typeof error.kind !== 'string' || typeof error.message !== 'string')) return "the model-call record's error needs a kind and a message";
      return undefined;
    }
    case 'trace': {
      const { trace } = record;
      if (!isObject(trace) || typeof trace.runId !== 'string' || !Array.isArray(trace.steps)) return 'a trace record needs a trace with a runId and a list of steps';
      const bad = trace.steps.findIndex((step: unknown) => !isObject(step) || !Array.isArray(step.toolCalls));
      return bad === -1 ? undefined : `the trace of run ${trace.runId}: step ${bad} has no list of toolCalls`;
    }
    default:
      return undefined;
  }
}

/**
 * That `value` is a session record of a type this loopchart reads, with the fields its readers
 * take from it (pure). A store checks each record it reads, so that a line another program, a
 * newer loopchart or a hostile hand wrote is refused where it is instead of being skipped,
 * misread, or crashing a reader far from it.
 *
 * @param where names the record for the message: `<file>: line 7`, `session chat-42 (Postgres), record 3`.
 * @throws SessionFormatError naming `where` and what is wrong.
 *
 * @example
 * ```ts
 * checkSessionRecord({ type: 'message', index: 0, message: { role: 'user', content: 'hi' } }, 's.jsonl: line 2'); // fine
 * checkSessionRecord(42, 's.jsonl: line 3'); // SessionFormatError: s.jsonl: line 3: not a session record …
 * ```
 */
export function checkSessionRecord(value: unknown, where: string): asserts value is SessionRecord {
  if (!isObject(value) || typeof value.type !== 'string') {
    throw new SessionFormatError(`${where}: not a session record (an object with a type), but ${shown(value)}`);
  }
  if (!(RECORD_TYPES as readonly string[]).includes(value.type)) {
    throw new SessionFormatError(
      `${where}: record type ${shown(value.type)} is not one this loopchart reads (${RECORD_TYPES.join(', ')}): was the session written by another program, or a newer loopchart that should have raised the format version?`,
    );
  }
  const problem = fieldsProblem(value);
  if (problem !== undefined) throw new SessionFormatError(`${where}: ${problem}`);
}
