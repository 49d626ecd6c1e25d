import { fromCallback, fromPromise, type Actor, type ActorScope, type AnyActorScope, type EventObject } from 'xstate';
import { tapMicrosteps } from '../machine/xstate-internals.js';
import { sharedAgentMachine } from '../machine/shared-agent-machine.js';
import type { AgentMachine } from '../machine/agent-machine.js';
import type { RunStart, SessionHost } from './session-host.js';
import type { SessionSignalEvent } from './session-events.js';

/** Only the host: the history and the checkpoint it restores stay out of the input, which the inspector sees. */
type RunChartInput = { host: SessionHost };

/**
 * The run chart as the session invokes it: the shared agent machine, started from the stored
 * checkpoint when its input carries one (XState's own `restoreSnapshot`, as `createActor({ snapshot })`
 * does), and bound to its agent's implementations and event stream before it starts. The trace, the
 * run journal and telemetry hear of each event it takes and each microstep it makes from here
 * (`tapMicrosteps`), not through XState's system-wide inspection.
 */
export const runChart: AgentMachine = Object.create(sharedAgentMachine, {
  getInitialSnapshot: {
    value(this: AgentMachine, scope: ActorScope<never, never>, input: RunChartInput) {
      const { host } = input;
      const { input: machineInput, snapshot } = host.takeRunStart();
      const self = scope.self as unknown as Actor<AgentMachine>;
      const tapped = tapMicrosteps(scope as unknown as AnyActorScope, (event) => host.runMicrostep(event));
      runs.set(scope as unknown as AnyActorScope, { host, tapped });
      const initial =
        snapshot === undefined
          ? sharedAgentMachine.getInitialSnapshot(tapped as never, machineInput)
          : sharedAgentMachine.restoreSnapshot(snapshot as never, tapped as never);
      host.attachRun(self, snapshot === undefined ? undefined : { getSnapshot: () => initial });
      return initial;
    },
  },
  transition: {
    value(this: AgentMachine, snapshot: never, event: EventObject, scope: AnyActorScope) {
      const run = runs.get(scope);
      run?.host.runTakes(event);
      return sharedAgentMachine.transition(snapshot, event as never, (run?.tapped ?? scope) as never);
    },
  },
}) as AgentMachine;

/** Each run chart actor's scope, with its host (which hears of every event the chart takes and every microstep) and the scope its microsteps are tapped through. */
const runs = new WeakMap<AnyActorScope, { host: SessionHost; tapped: AnyActorScope }>();

/** Acquires the session's lease. */
export const acquireLeaseActor = fromPromise<{ epoch: number }, { host: SessionHost }>(({ input }) => input.host.acquireLease());

/** Reads the session from the store: where the run chart starts, or undefined for a new session. */
export const loadSessionActor = fromPromise<RunStart | undefined, { host: SessionHost }>(({ input }) => input.host.loadSession());

/** Writes a new session's header. */
export const createSessionActor = fromPromise<RunStart, { host: SessionHost }>(({ input }) => input.host.createSession());

/** Renews the lease while the session holds it; a lease found lost is `session.leaseLost`. */
export const leaseRenewerActor = fromCallback<EventObject, { host: SessionHost }, SessionSignalEvent>(({ input, sendBack }) =>
  input.host.renewLease((error) => sendBack({ type: 'session.leaseLost', error })),
);

/** Writes the run chart's step boundaries to the store; a write that fails is `session.writeFailed`. */
export const sessionWriterActor = fromCallback<EventObject, { host: SessionHost }, SessionSignalEvent>(({ input, sendBack }) =>
  input.host.writeBoundaries((error) => sendBack({ type: 'session.writeFailed', error })),
);

/** Resolves once the session's sub-agents have ended and every boundary handed to the writer has landed or failed. */
export const settleWritesActor = fromPromise<void, { host: SessionHost }>(async ({ input }) => {
  await input.host.subagentsEnded();
  await input.host.settled();
});

/** Stops writing as a crash would: the sub-agents end (the run that called them is stopped), the writes handed over land, nothing after them does. */
export const haltWritesActor = fromPromise<void, { host: SessionHost; reason: Error }>(async ({ input }) => {
  await input.host.subagentsEnded();
  await input.host.settled();
  input.host.closeWriter(input.reason);
});

/** Lets the lease go (a store out of reach cannot take it: the lease lapses by itself). */
export const releaseLeaseActor = fromPromise<void, { host: SessionHost }>(({ input }) => input.host.releaseLease());
