import { fromCallback, type EventObject } from 'xstate';

export interface DeadlineActorInput {
  /** Epoch milliseconds; absent: never fires. */
  at: number | undefined;
}

/**
 * Sends `event` to its parent at an absolute time kept in the machine's
 * context. As an invoked actor it is restarted when a persisted snapshot is
 * restored — unlike an `after` timer, which a restored snapshot loses — so a
 * retry wait, an approval timeout or a run deadline survive a restart.
 */
export function deadlineActor<TEvent extends EventObject>(event: TEvent) {
  return fromCallback<EventObject, DeadlineActorInput, TEvent>(({ input, sendBack }) => {
    if (input.at === undefined) return undefined;
    const timer = setTimeout(() => sendBack(event), Math.max(0, input.at - Date.now()));
    return () => clearTimeout(timer);
  });
}
