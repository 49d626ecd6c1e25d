import type { AnyEventObject, MachineContext } from 'xstate';
import { redact } from '../secrets/redact.js';

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

export function summariseHistory(messages: unknown, secrets: readonly string[] = []): unknown {
  if (!Array.isArray(messages)) return messages;
  const last: unknown = messages.at(-1);
  return { messages: messages.length, ...(last !== undefined ? { last: preview(last, secrets) } : {}) };
}

/**
 * The context as the inspector should see it: every `messages` array (the
 * history, child inputs) is summarised, so a snapshot costs the same at any
 * history length. `secrets` are redacted before anything is cut.
 */
export function sanitizeContext(context: MachineContext, secrets: readonly string[] = []): MachineContext {
  return summariseMessages(context, secrets) as MachineContext;
}

export function sanitizeEvent(event: AnyEventObject, secrets: readonly string[] = []): AnyEventObject {
  return summariseMessages(event, secrets) as AnyEventObject;
}

function summariseMessages(value: unknown, secrets: readonly string[], depth = 0): unknown {
  if (depth > 4 || value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    out[key] = key === 'messages' ? summariseHistory(child, secrets) : summariseMessages(child, secrets, depth + 1);
  }
  return out;
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
