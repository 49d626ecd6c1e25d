import type { AnyEventObject, MachineContext } from 'xstate';

/** What the inspector sees of a history: its size and the last message, cut short. */
export interface HistorySummary {
  messages: number;
  last?: string;
}

const PREVIEW = 200;

function preview(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
  return text.length > PREVIEW ? `${text.slice(0, PREVIEW)}…` : text;
}

export function summariseHistory(messages: unknown): unknown {
  if (!Array.isArray(messages)) return messages;
  const last: unknown = messages.at(-1);
  return { messages: messages.length, ...(last !== undefined ? { last: preview(last) } : {}) };
}

/**
 * The context as the inspector should see it: every `messages` array (the
 * history, child inputs) is summarised, so a snapshot costs the same at any
 * history length.
 */
export function sanitizeContext(context: MachineContext): MachineContext {
  return summariseMessages(context) as MachineContext;
}

export function sanitizeEvent(event: AnyEventObject): AnyEventObject {
  return summariseMessages(event) as AnyEventObject;
}

function summariseMessages(value: unknown, depth = 0): unknown {
  if (depth > 4 || value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    out[key] = key === 'messages' ? summariseHistory(child) : summariseMessages(child, depth + 1);
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
  let text = safeJson(value);
  for (const secret of secrets) {
    if (secret.length >= 4) text = text.split(JSON.stringify(secret).slice(1, -1)).join('[redacted]');
  }
  return JSON.parse(text) as T;
}
