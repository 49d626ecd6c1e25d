/**
 * XState alone: a two-state machine whose context holds an array of 10,000 objects, and each
 * transition assigns a copy with one more (as an agent's context gets a new history array when a
 * message is appended). With only the `assign`, the copies die young. With one custom action as
 * well (an entry action that does nothing; an `emit` does the same), every copy survives V8's young
 * collections until the next full one, and the collector's copying dominates the transition: see
 * docs/performance.md, "What XState's actions keep alive".
 */
import { assign, createActor, setup } from 'xstate';
import { check } from './support.js';

const SIZE = 10_000;
const WARM_UP = 2_000;
const TRANSITIONS = 6_000;

function copyingMachine(withAction: boolean) {
  const base: object[] = Array.from({ length: SIZE }, (_, index) => ({ role: 'user', content: `message ${index}` }));
  const machineSetup = setup({
    types: { context: {} as { items: object[]; transitions: number } },
    actions: {
      append: assign(({ context }) => ({
        // Back to the original array every 40 copies: the size stays near 10,000.
        items: context.items.length >= SIZE + 40 ? base : context.items.concat([{ role: 'assistant', content: `${context.transitions}` }]),
        transitions: context.transitions + 1,
      })),
      nothing: () => undefined,
    },
  });
  const state = (next: 'a' | 'b') => ({ ...(withAction ? { entry: 'nothing' as const } : {}), on: { go: { target: next, actions: 'append' as const } } });
  return machineSetup.createMachine({ context: { items: base, transitions: 0 }, initial: 'a', states: { a: state('b'), b: state('a') } });
}

/** Microseconds per transition of the copying machine, with or without a custom entry action. */
export function copyingTransitionMicros(withAction: boolean): number {
  const actor = createActor(copyingMachine(withAction)).start();
  for (let i = 0; i < WARM_UP; i++) actor.send({ type: 'go' });
  const started = performance.now();
  for (let i = 0; i < TRANSITIONS; i++) actor.send({ type: 'go' });
  const micros = ((performance.now() - started) * 1000) / TRANSITIONS;
  check(actor.getSnapshot().context.transitions === WARM_UP + TRANSITIONS, 'the copying machine must have made every transition');
  actor.stop();
  return micros;
}
