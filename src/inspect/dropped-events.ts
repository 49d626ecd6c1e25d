import { reportToAppOrWarnOnce } from '../core/warn-once.js';

/** The `code` of the process warning of an inspector without `onDropped` that dropped events. */
export const INSPECTION_EVENTS_DROPPED_WARNING = 'LOOPCHART_INSPECTION_EVENTS_DROPPED';

/** How an inspector tells of events it dropped: how many, and why. */
export type OnDropped = (events: number, reason: string) => void;

/**
 * The inspector's `onDropped`, whose throw is swallowed, or, without one, a process warning
 * (`LOOPCHART_INSPECTION_EVENTS_DROPPED`) for the first drop, naming `who` dropped them.
 *
 * @example
 * ```ts
 * const dropped = droppedEventsReporter(options.onDropped, 'createWebSocketInspector');
 * dropped(3, 'more than maxDeferredEvents (200) waited while it was not connected');
 * ```
 */
export function droppedEventsReporter(onDropped: OnDropped | undefined, who: string): OnDropped {
  return reportToAppOrWarnOnce(
    onDropped,
    INSPECTION_EVENTS_DROPPED_WARNING,
    (events, reason) => `${who}: ${events} inspection events were dropped (${reason}): the Stately inspector shows the run without them. Later drops are not warned of: pass onDropped to hear of each.`,
  );
}
