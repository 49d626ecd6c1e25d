import { jsonExcerpt } from '../core/json-excerpt.js';
import { z } from 'zod';
import { SessionFormatError, type SessionRecord } from './session-store.js';

const count = z.number().int().nonnegative();
const ms = z.number().refine(Number.isFinite, 'expected a finite number of ms');
/** A tool call as a model call's response and a trace's step hold one: the readers (the time-travel view, `loopchart script`) take its id and name. */
const toolCall = z.looseObject({ toolCallId: z.string(), toolName: z.string() });

/** A model message as the history holds one: a role, and text or a list of parts (a tool message: a list). */
export const modelMessageSchema = z.union(
  [
    z.looseObject({ role: z.literal('tool'), content: z.array(z.unknown()) }),
    z.looseObject({ role: z.enum(['system', 'user', 'assistant']), content: z.union([z.string(), z.array(z.unknown())]) }),
  ],
  { error: 'expected a model message: a role (system, user, assistant or tool) and text or a list of parts (a tool message: a list)' },
);

/**
 * Each record type a session of the versions this loopchart reads may hold, with the fields its
 * readers take from it (the rest is kept as it is: a newer writer may add fields).
 */
const sessionRecordSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('message'), index: count, message: modelMessageSchema }),
  z.looseObject({ type: z.literal('history'), messages: z.array(modelMessageSchema) }),
  z.looseObject({
    type: z.literal('checkpoint'),
    id: z.number().int().min(1),
    step: count,
    messageCount: count,
    state: z.string(),
    at: z.string(),
    runId: z.string().optional(),
    snapshot: z.looseObject({ value: z.unknown().refine((value) => value !== undefined, 'a machine snapshot has a value'), context: z.looseObject({}) }),
  }),
  z.looseObject({
    type: z.literal('timeline'),
    runId: z.string(),
    at: ms,
    // [ms, event, from, to, step, guard?]
    points: z.array(z.tuple([ms, z.string(), z.string(), z.string(), ms, z.string().optional()])),
  }),
  z.looseObject({
    type: z.literal('model-call'),
    runId: z.string(),
    step: count,
    attempt: count,
    startedAt: ms,
    request: z.looseObject({ messageCount: count, tools: z.array(z.unknown()), settings: z.looseObject({}) }),
    response: z.looseObject({ text: z.string(), toolCalls: z.array(toolCall) }).optional(),
    error: z.looseObject({ kind: z.string(), message: z.string() }).optional(),
  }),
  z.looseObject({ type: z.literal('trace'), trace: z.looseObject({ runId: z.string(), steps: z.array(z.looseObject({ toolCalls: z.array(toolCall) })) }) }),
]);

const RECORD_TYPES = sessionRecordSchema.options.map((option) => option.shape.type.value);

/**
 * That `value` is a session record of a type this loopchart reads, with the fields its readers
 * take from it (pure). A store checks each record it reads, so that a line another program, a
 * newer loopchart or a hostile hand wrote is refused where it is instead of being skipped,
 * misread, or crashing a reader far from it.
 *
 * @param where names the record for the message: `<file>: line 7`, `session chat-42 (Postgres), record 3`.
 * @throws SessionFormatError naming `where`, the record's type and each field that does not fit.
 *
 * @example
 * ```ts
 * checkSessionRecord({ type: 'message', index: 0, message: { role: 'user', content: 'hi' } }, 's.jsonl: line 2'); // fine
 * checkSessionRecord(42, 's.jsonl: line 3'); // SessionFormatError: s.jsonl: line 3: not a session record …
 * ```
 */
export function checkSessionRecord(value: unknown, where: string): asserts value is SessionRecord {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || typeof (value as { type?: unknown }).type !== 'string') {
    throw new SessionFormatError(`${where}: not a session record (an object with a type), but ${jsonExcerpt(value)}`);
  }
  const { type } = value as { type: string };
  if (!(RECORD_TYPES as readonly string[]).includes(type)) {
    throw new SessionFormatError(
      `${where}: record type ${jsonExcerpt(type)} is not one this loopchart reads (${RECORD_TYPES.join(', ')}): was the session written by another program, or a newer loopchart that should have raised the format version?`,
    );
  }
  const parsed = sessionRecordSchema.safeParse(value);
  if (parsed.success) return;
  const problems = parsed.error.issues.map((issue) => `${issue.path.map(String).join('.')}: ${issue.message}`);
  throw new SessionFormatError(`${where}: a ${type} record this loopchart cannot read: ${problems.join('; ')}`);
}
