import type { AnyEventObject, MachineContext } from 'xstate';
import { redact } from '../secrets/redact.js';
import { MessageHistory, type MessageList } from '../core/message-history.js';

/** What the inspector sees of a history: its size and the last message, cut short. */
export interface HistorySummary {
  messages: number;
  last?: string;
}

const PREVIEW = 200;

/** The text cut to {@link PREVIEW} characters, its secrets redacted first so that no cut can leave a piece of one. */
function preview(value: unknown, secrets: readonly string[]): string {
  const text = redact(typeof value === 'string' ? value : (JSON.stringify(value) ?? ''), secrets);
  return text.length > PREVIEW ? `${text.slice(0, PREVIEW)}…` : text;
}

/** Whether `value` is a history: the machine's `MessageHistory`, or an array of messages. */
function isHistory(value: unknown): value is MessageList {
  return Array.isArray(value) || MessageHistory.isHistory(value);
}

export function summariseHistory(messages: unknown, secrets: readonly string[] = []): unknown {
  if (!isHistory(messages)) return messages;
  const last: unknown = messages.at(-1);
  return { messages: messages.length, ...(last !== undefined ? { last: preview(last, secrets) } : {}) };
}

/**
 * What sanitising remembers from one event to the next: the result for each
 * object seen, by identity, with the depth it was seen at. Sound because XState
 * contexts are immutable (`assign` makes new objects and never changes one), so
 * the next snapshot's unchanged parts are the very same objects.
 */
export type SanitizeMemo = WeakMap<object, { depth: number; result: unknown }>;

/**
 * The context as the inspector should see it: every `messages` array (the
 * history, child inputs) is summarised, so a snapshot costs the same at any
 * history length. `secrets` are redacted before anything is cut. With a
 * `memo`, parts seen in an earlier snapshot are not walked again.
 */
export function sanitizeContext(context: MachineContext, secrets: readonly string[] = [], memo?: SanitizeMemo): MachineContext {
  return summariseMessages(context, secrets, 0, memo) as MachineContext;
}

export function sanitizeEvent(event: AnyEventObject, secrets: readonly string[] = [], memo?: SanitizeMemo): AnyEventObject {
  if (event.type === 'run.ended' && isPlainRecord(event.result)) return { ...event, result: summariseRunResult(event.result, secrets) };
  return summariseMessages(event, secrets, 0, memo) as AnyEventObject;
}

/** What the inspector sees of a run's result (the session chart's `run.ended`): a third of a 50-step run's inspection bytes were its steps, trace and tool results. */
export interface RunResultSummary {
  outcome?: unknown;
  stepCount?: unknown;
  toolCallCount?: unknown;
  usage?: unknown;
  error?: unknown;
  /** The final text, cut to 200 characters. */
  text?: string;
  messages: unknown;
}

/** A run's result with its outcome, counts, usage, error and final text (cut short); its steps, trace and tool results left out. */
function summariseRunResult(result: Record<string, unknown>, secrets: readonly string[]): RunResultSummary {
  const { outcome, stepCount, toolCallCount, usage, error, text } = result;
  return {
    outcome,
    stepCount,
    toolCallCount,
    usage,
    ...(error !== undefined ? { error } : {}),
    ...(text !== undefined ? { text: preview(text, secrets) } : {}),
    messages: summariseHistory(result.messages, secrets),
  };
}

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Where a `messages` array's summary is remembered: it does not depend on depth. */
const HISTORY = -1;

/** The value with every `messages` array in it summarised: an object with none in it is returned as it is, not copied. */
function summariseMessages(value: unknown, secrets: readonly string[], depth: number, memo: SanitizeMemo | undefined): unknown {
  if (depth > 4 || value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const known = memo?.get(value);
  if (known?.depth === depth) return known.result;
  let out: Record<string, unknown> | undefined;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const child = (value as Record<string, unknown>)[key];
    const summarised = key === 'messages' ? summarisedHistory(child, secrets, memo) : summariseMessages(child, secrets, depth + 1, memo);
    if (summarised === child && out === undefined) continue;
    // The first part that changed: the keys before it are copied as they are, the rest as they come.
    if (out === undefined) {
      out = {};
      for (const earlier in value) {
        if (earlier === key) break;
        if (Object.hasOwn(value, earlier)) out[earlier] = (value as Record<string, unknown>)[earlier];
      }
    }
    out[key] = summarised;
  }
  const result = out ?? value;
  memo?.set(value, { depth, result });
  return result;
}

function summarisedHistory(messages: unknown, secrets: readonly string[], memo: SanitizeMemo | undefined): unknown {
  if (!isHistory(messages)) return summariseHistory(messages, secrets);
  const known = memo?.get(messages);
  if (known?.depth === HISTORY) return known.result;
  const result = summariseHistory(messages, secrets);
  memo?.set(messages, { depth: HISTORY, result });
  return result;
}

/**
 * JSON text of anything: a reference back to an enclosing object (a cycle)
 * becomes `"[circular]"`, a BigInt its digits; functions and symbols are left
 * out. An object met twice without a cycle (shared, not circular) is written
 * both times.
 */
export function safeJson(value: unknown): string {
  const ancestors: object[] = [];
  return (
    JSON.stringify(value, function (this: unknown, _key, node: unknown) {
      if (typeof node === 'bigint') return node.toString();
      if (node === null || typeof node !== 'object') return node;
      // `this` is the object holding `node`: what is above it on the stack is no longer an ancestor.
      while (ancestors.length > 0 && ancestors.at(-1) !== this) ancestors.pop();
      if (ancestors.includes(node)) return '[circular]';
      ancestors.push(node);
      return node;
    }) ?? 'null'
  );
}

/** `value` as plain JSON data with every occurrence of the secrets replaced by `[redacted]`. */
export function redactSecrets<T>(value: T, secrets: readonly string[]): T {
  return JSON.parse(redact(safeJson(value), secrets)) as T;
}
