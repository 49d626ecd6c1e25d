import { isThenable } from '../core/is-thenable.js';
import { answerWithin } from '../core/answer-within.js';
import { errorMessage } from '../core/error-message.js';
import { reportToAppOrWarnOnce } from '../core/warn-once.js';

/** Why an app's `onEvent` did not take an event: it threw, its promise rejected, or it did not settle in time. */
export class EventNotPublishedError extends Error {
  override readonly name = 'EventNotPublishedError';
}

/** The process warning's code when an event was not published and no `onEventError` is given. */
export const EVENT_NOT_PUBLISHED_WARNING = 'LOOPCHART_EVENT_NOT_PUBLISHED';

export interface EventPublishingOptions<EVENT> {
  /** Whose events these are, for the error messages. */
  sessionId: string;
  /** The app's publisher: whatever it throws or rejects with is a failure; a promise is waited for by {@link EventPublishing.settled}. */
  onEvent: (event: EVENT) => unknown;
  /** Told of each event not published. Without it the first failure is a process warning, and the rest are only counted. */
  onEventError?: ((error: EventNotPublishedError, event: EVENT) => void) | undefined;
}

export interface EventPublishing<EVENT> {
  /** Hands one event to `onEvent`; a throw or a rejection is reported, never thrown or lost. */
  publish(event: EVENT): void;
  /** Something the publishing waits for that is not an event of its own (the lease confirmed before held-back events go out). */
  track(work: Promise<unknown>): void;
  /**
   * Resolves once every publish so far has settled, or `timeoutMs` after the call: the events
   * still pending then are reported as not published (with the timeout as the reason) and no
   * longer waited for.
   */
  settled(timeoutMs: number): Promise<void>;
  /** How many events were not published so far. */
  readonly failures: number;
}

interface Pending<EVENT> {
  event: EVENT | undefined;
  done: boolean;
}

/**
 * The events an advance of a session hands to the app's `onEvent`, and what became of them. An
 * app's publisher is a seam like any other: it may throw, reject, or never answer (a stalled
 * broker), and none of these may end the process, hold the session's turn for ever, or pass
 * unnoticed.
 *
 * @example
 * ```ts
 * const publishing = eventPublishing({ sessionId, onEvent: (event) => broker.publish(event), onEventError: (error) => log.warn(error.message) });
 * agentEvents.subscribe((event) => publishing.publish(event));
 * await publishing.settled(30_000);
 * ```
 */
export function eventPublishing<EVENT extends { type: string }>(options: EventPublishingOptions<EVENT>): EventPublishing<EVENT> {
  const pending = new Map<Promise<unknown>, Pending<EVENT>>();
  let failures = 0;
  const report = reportToAppOrWarnOnce(
    options.onEventError,
    EVENT_NOT_PUBLISHED_WARNING,
    (error: EventNotPublishedError) => `${error.message}. Later failures of this advance are not warned of; pass onEventError to hear of each.`,
  );
  const fail = (entry: Pending<EVENT>, reason: unknown, event: EVENT) => {
    if (entry.done) return;
    entry.done = true;
    failures++;
    const error = new EventNotPublishedError(`the ${event.type} event of session ${options.sessionId} was not published: ${errorMessage(reason)}`, { cause: reason });
    report(error, event);
  };
  const follow = (work: Promise<unknown>, entry: Pending<EVENT>) => {
    const settled: Promise<unknown> = work.then(
      () => {
        entry.done = true;
      },
      (error: unknown) => {
        if (entry.event !== undefined) fail(entry, error, entry.event);
        entry.done = true;
      },
    );
    pending.set(settled, entry);
    void settled.finally(() => pending.delete(settled));
  };
  return {
    publish(event) {
      const entry: Pending<EVENT> = { event, done: false };
      let published: unknown;
      try {
        published = options.onEvent(event);
      } catch (error) {
        fail(entry, error, event);
        return;
      }
      if (isThenable(published)) follow(Promise.resolve(published), entry);
    },
    track(work) {
      follow(work, { event: undefined, done: false });
    },
    async settled(timeoutMs) {
      // A tracked confirmation publishes the events it held back when it settles: those are waited for too.
      const drained = (async () => {
        while (pending.size > 0) await Promise.all(pending.keys());
      })();
      try {
        await answerWithin(drained, timeoutMs, () => new Error(`onEvent did not settle within ${timeoutMs} ms (eventTimeoutMs)`));
      } catch (late) {
        for (const entry of pending.values()) if (entry.event !== undefined) fail(entry, late, entry.event);
        pending.clear();
      }
    },
    get failures() {
      return failures;
    },
  };
}
