import type { Actor, AnyActorLogic, Subscription } from 'xstate';

/** A view of whichever actor is current, and the call that moves its subscriptions to a new one. */
export interface StableActor<LOGIC extends AnyActorLogic> {
  /** Reads go to the current actor; `subscribe` and `on` follow it when it is replaced. */
  view: Actor<LOGIC>;
  /** The current actor was replaced: subscriptions made through the view move to the new one. */
  replaced(): void;
}

/**
 * One actor object for the life of an agent, though the agent replaces its actor (a session's
 * placeholder by the restored one as it opens, a crashed actor by a fresh one): what a caller kept
 * of `agent.actor` stays the agent's actor, and what it subscribed keeps hearing from it.
 *
 * @example
 * const stable = stableActor(() => this.current);
 * stable.view.getSnapshot(); // the current actor's snapshot
 */
export function stableActor<LOGIC extends AnyActorLogic>(current: () => Actor<LOGIC>): StableActor<LOGIC> {
  const kept = new Set<{ attach: (actor: Actor<LOGIC>) => Subscription; subscription: Subscription }>();
  const keep = (attach: (actor: Actor<LOGIC>) => Subscription): Subscription => {
    const entry = { attach, subscription: attach(current()) };
    kept.add(entry);
    return {
      unsubscribe() {
        entry.subscription.unsubscribe();
        kept.delete(entry);
      },
    };
  };
  // The first actor is the proxy's target only for its prototype (`instanceof Actor`); every read goes to the current one.
  const view = new Proxy(current(), {
    get(_target, property) {
      const actor = current();
      if (property === 'subscribe') return (...args: Parameters<Actor<LOGIC>['subscribe']>) => keep((next) => next.subscribe(...(args as [never])));
      if (property === 'on') return (...args: Parameters<Actor<LOGIC>['on']>) => keep((next) => next.on(...(args as [never, never])));
      const value: unknown = Reflect.get(actor, property, actor);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(actor) : value;
    },
  });
  return {
    view,
    replaced() {
      for (const entry of kept) {
        entry.subscription.unsubscribe();
        entry.subscription = entry.attach(current());
      }
    },
  };
}
