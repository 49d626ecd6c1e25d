import { jsonExcerpt } from '../core/json-excerpt.js';
import type { AgentEvent } from '../core/events.js';

/**
 * One agent event as it travels between workers and clients: the event, the
 * session it belongs to, and the epoch of the session lease of the worker
 * that produced it. A client uses the step, attempt and epoch to drop the
 * partial text of an abandoned attempt: a retry (higher attempt) or a new
 * worker after a crash (higher epoch) streams the step again from its start.
 */
export interface StreamedEvent {
  sessionId: string;
  epoch: number;
  /** The event, as JSON carries it (an `Error` anywhere in it becomes `{ name, message }`). */
  event: AgentEvent;
}

/** The event as JSON: errors keep their name and message instead of becoming `{}`, and a bigint becomes its digits. */
export function encodeStreamedEvent(streamed: StreamedEvent): string {
  return JSON.stringify(streamed, (_key, value: unknown) => {
    if (value instanceof Error) return { name: value.name, message: value.message };
    return typeof value === 'bigint' ? value.toString() : value;
  });
}

/**
 * The entry's event, checked to be one `encodeStreamedEvent` wrote: an object with the session's
 * id, a whole-number epoch and an event with a type. An epoch that is text would compare above
 * every real one and make the entries after it look stale; an entry without an event would break
 * every client.
 * @throws TypeError saying what is wrong, when the text is not JSON or not such an entry.
 */
export function decodeStreamedEvent(text: string): StreamedEvent {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new TypeError(`its entry is not JSON: ${text.slice(0, 80)}`);
  }
  const entry = value as Partial<StreamedEvent> | null;
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw new TypeError(`its entry is ${jsonExcerpt(entry)}, not an object`);
  if (typeof entry.sessionId !== 'string') throw new TypeError(`its sessionId must be text, not ${jsonExcerpt(entry.sessionId)}`);
  if (!Number.isSafeInteger(entry.epoch) || entry.epoch! < 0) throw new TypeError(`its epoch must be a whole number, 0 or more, not ${jsonExcerpt(entry.epoch)}`);
  const event = entry.event as { type?: unknown } | undefined;
  if (typeof event !== 'object' || event === null || typeof event.type !== 'string') throw new TypeError(`its event must be an object with a type, not ${jsonExcerpt(event)}`);
  return entry as StreamedEvent;
}

/**
 * The epochs of a session's stream, in the order its entries come: an entry whose epoch is below
 * the highest seen so far was written by a worker that had lost the session to another (a paused
 * worker going on until it learned so) and is stale.
 *
 * @example
 * ```ts
 * const epochs = new EpochFilter();
 * epochs.admit(1); // true
 * epochs.admit(2); // true
 * epochs.admit(1); // false: stale
 * ```
 */
export class EpochFilter {
  private highest = -Infinity;

  /** Whether an entry of this epoch is current; it raises the highest epoch seen. */
  admit(epoch: number): boolean {
    if (epoch < this.highest) return false;
    this.highest = epoch;
    return true;
  }
}

/** Orders the producers of a step's text: a later epoch (another worker) or attempt (a retry) wins. */
function isNewer(a: { epoch: number; attempt: number }, b: { epoch: number; attempt: number }): boolean {
  return a.epoch > b.epoch || (a.epoch === b.epoch && a.attempt > b.attempt);
}

/**
 * The text a client should show for each run, from the entries it received in order: for every
 * step, only the deltas of its latest producer (highest epoch, then attempt); the partial text of
 * an attempt that a retry or a worker's death abandoned is dropped, even when the new attempt has
 * streamed nothing yet (its `retry` or `start-step` is enough). An entry whose epoch is below the
 * highest seen before it (a worker that went on after losing its lease) is ignored.
 *
 * @example
 * ```ts
 * const texts = keptText(entries); // Map { 'run-1' => 'All work done.' }
 * ```
 */
export function keptText(entries: readonly StreamedEvent[]): Map<string, string> {
  const steps = new Map<string, { runId: string; epoch: number; attempt: number; text: string }>();
  const order: string[] = [];
  const epochs = new EpochFilter();
  for (const { event, epoch } of entries) {
    if (!epochs.admit(epoch)) continue;
    // A step starting on another worker, or a retry, starts the step's text again, even before any delta of its own.
    if (event.type !== 'text-delta' && event.type !== 'retry' && event.type !== 'start-step') continue;
    const key = `${event.runId}\u0000${event.step}`;
    const producer = { epoch, attempt: event.type === 'start-step' ? 1 : event.attempt };
    const text = event.type === 'text-delta' ? event.text : '';
    const current = steps.get(key);
    if (!current) {
      steps.set(key, { runId: event.runId, ...producer, text });
      order.push(key);
    } else if (isNewer(producer, current)) {
      steps.set(key, { runId: event.runId, ...producer, text });
    } else if (producer.epoch === current.epoch && producer.attempt === current.attempt) {
      current.text += text;
    }
  }
  const texts = new Map<string, string>();
  for (const key of order) {
    const step = steps.get(key)!;
    texts.set(step.runId, (texts.get(step.runId) ?? '') + step.text);
  }
  return texts;
}
