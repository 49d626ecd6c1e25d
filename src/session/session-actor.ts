import { createActor, type Actor, type AnyActorRef, type InspectionEvent, type Subscription } from 'xstate';
import { inspectedActor, parentOf } from '../machine/xstate-internals.js';
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
    // XState hands `inspect` to the system only for a root actor: a sub-agent's session (a child) watches its own part of the system.
    const ownInspection = parent && inspect ? inspectOwnActors(parent, inspect) : undefined;
    const actor = createActor(sessionMachine, {
      input: { host },
      ...(parent ? { parent } : {}),
      ...(inspect && !parent ? { inspect } : {}),
    });
    ownInspection?.created(actor);
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

/**
 * Hands `inspect` the inspection events of the session actor about to be created as a child of
 * `parent` and of every actor under it, from the system they share with the calling agent (none of
 * the caller's own). Call `created` with the session actor as soon as it exists: its own creation
 * event arrives before, as the first actor created under `parent` from now on. The watch ends when
 * the session actor stops.
 */
function inspectOwnActors(parent: AnyActorRef, inspect: (event: InspectionEvent) => void): { created(session: Actor<SessionMachine>): void } {
  let session: AnyActorRef | undefined;
  const isOwn = (actorRef: InspectionEvent['actorRef']): boolean => {
    for (let actor = inspectedActor(actorRef) as AnyActorRef | undefined; actor !== undefined; actor = parentOf(actor)) {
      if (actor === session) return true;
      if (actor === parent) return false;
    }
    return false;
  };
  const subscription = parent.system.inspect({
    next: (event: InspectionEvent) => {
      if (session === undefined && event.type === '@xstate.actor' && parentOf(event.actorRef as AnyActorRef) === parent) session = event.actorRef as AnyActorRef;
      if (session !== undefined && isOwn(event.actorRef)) inspect(event);
    },
  });
  return {
    created(actor) {
      session = actor;
      actor.subscribe({ complete: () => subscription.unsubscribe(), error: () => subscription.unsubscribe() });
    },
  };
}
