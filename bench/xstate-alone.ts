/**
 * XState alone, without loopchart: what one transition of a two-state machine
 * costs, and one that starts or stops an invoked callback child (no
 * inspection observer, a `fromCallback` child that does nothing). A loopchart
 * tool step makes five transitions and starts and stops one child (the llm
 * call; the tool runner lives as long as the run); the last row adds that up,
 * as the least a step can cost on XState before any work of its own. Compare it with the floor and
 * the machine-alone rows of the loop benchmark.
 */
import { assign, createActor, fromCallback, setup } from 'xstate';
import { check, measureRounds, median, ratio, type Row } from './support.js';

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
  const invoking = (median(times.invoking) * 1000) / TRANSITIONS;
  // Half of the invoking machine's transitions start the child and half stop it: each of those costs `2 * invoking - plain`.
  const withChild = 2 * invoking - plain;
  const stepShare = 5 * plain + 2 * (withChild - plain);
  return [
    { figure: 'XState alone: one transition of a two-state machine', value: `${plain.toFixed(1)} µs` },
    { figure: '  one that starts or stops an invoked child', value: `${withChild.toFixed(1)} µs`, ratio: `${ratio(withChild / plain)} a transition` },
    { figure: "  a tool step's share: 5 transitions, one child started and stopped", value: `${stepShare.toFixed(0)} µs` },
  ];
}
