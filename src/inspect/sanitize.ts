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

/** JSON text of anything: repeated or circular references become `"[circular]"`, functions and symbols are left out. */
export function safeJson(value: unknown): string {
  const seen = new WeakSet<object>();
  return (
    JSON.stringify(value, (_key, node: unknown) => {
      if (typeof node === 'bigint') return node.toString();
      if (node && typeof node === 'object') {
        if (seen.has(node)) return '[circular]';
        seen.add(node);
      }
      return node;
    }) ?? 'null'
  );
}

/** `value` as plain JSON data with every occurrence of the secrets replaced by `[redacted]`. */
export function redactSecrets<T>(value: T, secrets: readonly string[]): T {
  return JSON.parse(redact(safeJson(value), secrets)) as T;
}
