import type { InspectionEvent } from 'xstate';
import type { AgentEvent } from '../core/events.js';
import type { HookTiming } from '../core/run-trace.js';

/**
 * What watches an agent's runs from the side — the run trace, the run journal, telemetry spans — is
 * told the same three things: the run chart's own steps as XState inspection events (each event it
 * takes, as `@xstate.event` when it starts on it, and each `@xstate.microstep`; nothing of other
 * actors), the events the machine emits (at the moment it emits them, before any store write) and
 * each hook's timing. Each method is optional and must not throw. (The `inspect` option is not one:
 * it hears the actor system's every inspection event.)
 */
export interface RunObserver {
  inspect?(event: InspectionEvent): void;
  event?(event: AgentEvent): void;
  hook?(timing: HookTiming): void;
}

/**
 * One observer that tells each of `observers` in turn, leaving out the ones that are undefined: the
 * agent wires this one observer to its actor, its events and its hooks, once.
 *
 * @example
 * ```ts
 * const observer = runObservers([traceRecorder, runJournal, telemetry?.spans]);
 * observer.event({ type: 'run-start', runId: 'r1' });
 * ```
 */
export function runObservers(observers: ReadonlyArray<RunObserver | undefined>): Required<RunObserver> {
  const present = observers.filter((observer): observer is RunObserver => observer !== undefined);
  const inspecting = present.filter((observer) => observer.inspect !== undefined);
  const hearing = present.filter((observer) => observer.event !== undefined);
  const timing = present.filter((observer) => observer.hook !== undefined);
  return {
    inspect: (event) => {
      for (const observer of inspecting) observer.inspect!(event);
    },
    event: (event) => {
      for (const observer of hearing) observer.event!(event);
    },
    hook: (given) => {
      for (const observer of timing) observer.hook!(given);
    },
  };
}
