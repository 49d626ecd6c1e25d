import { createActor, type Actor, type Subscription } from 'xstate';
import type { AgentOptions } from '../options.js';
import { SessionHost, type AgentEmbedding } from './session-host.js';
import { sessionMachine, type SessionMachine } from './session-machine.js';
import type { SessionInputEvent, SessionRefusal } from './session-events.js';

/** What became of an input: applied, or refused with why. */
export type SessionInputOutcome = { applied: true } | { applied: false; reason: SessionRefusal };

/**
 * One agent's session: its chart's actor (created and started on first use, so that an agent that
 * is never used holds no actor) and the host that does the chart's I/O. Used by the `Agent` facade
 * and by `advanceSession`; neither holds any state of the session's life: they send events and
 * read snapshots.
 *
 * @example
 * ```ts
 * const session = new AgentSession(options, { parent: undefined, depth: 0 });
 * session.actor.send({ type: 'session.prompt', messages, inputId: 'p1' });
 * ```
 */
export class AgentSession {
  readonly host: SessionHost;
  #actor: Actor<SessionMachine> | undefined;

  constructor(options: AgentOptions, embedding: AgentEmbedding) {
    this.host = new SessionHost(options, embedding);
  }

  /** The session chart's actor, started on first use: one inspection stream with the run chart it invokes (for the `inspect` option). */
  get actor(): Actor<SessionMachine> {
    return (this.#actor ??= this.#start());
  }

  #start(): Actor<SessionMachine> {
    const host = this.host;
    const parent = host.embedding.parent;
    const inspect = host.inspect;
    const actor = createActor(sessionMachine, {
      input: { host },
      ...(parent ? { parent } : {}),
      ...(inspect ? { inspect } : {}),
    });
    host.connect(actor);
    actor.start();
    return actor;
  }
}

/**
 * Sends an input and says what became of it, when the session decided at once (it was not busy
 * with another event); undefined when the input waits in the session's mailbox behind the event
 * it is handling.
 */
export function sendInput(session: Actor<SessionMachine>, event: SessionInputEvent): SessionInputOutcome | undefined {
  let outcome: SessionInputOutcome | undefined;
  const subscriptions: Subscription[] = [
    session.on('session.inputApplied', ({ input }) => {
      if (input === event) outcome = { applied: true };
    }),
    session.on('session.inputRefused', ({ input, reason }) => {
      if (input === event) outcome = { applied: false, reason };
    }),
  ];
  try {
    session.send(event);
  } finally {
    for (const subscription of subscriptions) subscription.unsubscribe();
  }
  return outcome;
}

/** Resolves with the session's snapshot once `predicate` holds (at once if it does now); rejects if the session stops before. */
export function untilSession(session: Actor<SessionMachine>, predicate: (snapshot: ReturnType<Actor<SessionMachine>['getSnapshot']>) => boolean): Promise<ReturnType<Actor<SessionMachine>['getSnapshot']>> {
  const now = session.getSnapshot();
  if (predicate(now)) return Promise.resolve(now);
  return new Promise((resolve, reject) => {
    const subscription = session.subscribe({
      next: (snapshot) => {
        if (!predicate(snapshot)) return;
        subscription.unsubscribe();
        resolve(snapshot);
      },
      error: reject,
      complete: () => {
        const last = session.getSnapshot();
        if (predicate(last)) resolve(last);
        else reject(new Error('loopchart: the session stopped before it got there'));
      },
    });
  });
}
