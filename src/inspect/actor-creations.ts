import type { ActorRefLike, InspectionEvent } from 'xstate';

/**
 * Each actor's snapshot as it was when the actor came to be. XState announces
 * an actor (`@xstate.actor`) before it has a snapshot, and a batch is converted
 * later, when a step's llm actor has long stopped: its first snapshot is taken
 * at the next snapshot or event the actor gets after that (its microsteps and
 * actions while it sets itself up come before it has one: XState's
 * development build throws when it is read then).
 */
export class ActorCreations {
  private readonly waiting = new Map<ActorRefLike, InspectionEvent>();
  private readonly snapshots = new WeakMap<InspectionEvent, unknown>();

  /** Notes `event`; returns the snapshot an actor is shown to have begun with, when this event is where it was taken. */
  observe(event: InspectionEvent): unknown {
    if (event.type === '@xstate.actor') {
      this.waiting.set(event.actorRef, event);
      return undefined;
    }
    if (this.waiting.size === 0 || (event.type !== '@xstate.snapshot' && event.type !== '@xstate.event')) return undefined;
    const creation = this.waiting.get(event.actorRef);
    if (creation === undefined) return undefined;
    const snapshot: unknown = event.type === '@xstate.snapshot' ? event.snapshot : readSnapshot(event.actorRef);
    if (snapshot === undefined) return undefined;
    this.snapshots.set(creation, snapshot);
    this.waiting.delete(event.actorRef);
    return snapshot;
  }

  /** The snapshot an `@xstate.actor` event's actor had when it began, if it has been seen. */
  snapshotOf(event: InspectionEvent): unknown {
    if (event.type !== '@xstate.actor') return undefined;
    this.waiting.delete(event.actorRef);
    return this.snapshots.get(event);
  }
}

/** The actor's snapshot, or `undefined` while it has none to give. */
export function readSnapshot(actorRef: ActorRefLike): unknown {
  try {
    return actorRef.getSnapshot();
  } catch {
    return undefined;
  }
}
