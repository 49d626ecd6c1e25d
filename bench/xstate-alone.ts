/**
 * XState alone, without loopchart: what one transition of a two-state machine
 * costs, and one that starts or stops an invoked callback child (no
 * inspection observer, a `fromCallback` child that does nothing): the unit
 * prices of XState's work. What a whole loopchart tool step asks of XState is
 * measured, not added up from these: the XState baseline of the loop benchmark
 * (bench/xstate-baseline.ts).
 */
import { assign, createActor, fromCallback, setup } from 'xstate';
import { amount, check, measureRounds, median, ratio, type Row } from './support.js';

const TRANSITIONS = 20_000;

const idleChild = fromCallback(({ receive }) => {
  receive(() => undefined);
  return () => undefined;
});

/** `a` ⇄ `b` on `go`, counting in the context; with `invokes`, `b` invokes a child. */
function toggleMachine(invokes: boolean) {
  return setup({ types: { context: {} as { transitions: number } }, actors: { child: idleChild } }).createMachine({
    context: { transitions: 0 },
    initial: 'a',
    states: {
      a: { on: { go: { target: 'b', actions: assign({ transitions: ({ context }) => context.transitions + 1 }) } } },
      b: invokes ? { invoke: { id: 'child', src: 'child' }, on: { go: 'a' } } : { on: { go: 'a' } },
    },
  });
}

function toggle(invokes: boolean): () => Promise<void> {
  const machine = toggleMachine(invokes);
  return async () => {
    const actor = createActor(machine).start();
    for (let i = 0; i < TRANSITIONS; i++) actor.send({ type: 'go' });
    check(actor.getSnapshot().context.transitions === TRANSITIONS / 2, 'the machine must have made every transition');
    actor.stop();
  };
}

export async function xstateAloneBench(): Promise<Row[]> {
  const times = await measureRounds(7, { plain: toggle(false), invoking: toggle(true) });
  const plain = (median(times.plain) * 1000) / TRANSITIONS;
  // Every transition of the invoking machine starts the child (a → b) or stops it (b → a).
  const withChild = (median(times.invoking) * 1000) / TRANSITIONS;
  return [
    { figure: 'XState alone: one transition of a two-state machine', value: `${plain.toFixed(1)} µs`, measure: amount(plain, 'µs', 1) },
    { figure: '  one that starts or stops an invoked child', value: `${withChild.toFixed(1)} µs`, ratio: `${ratio(withChild / plain)} a transition`, measure: amount(withChild, 'µs', 1) },
  ];
}
