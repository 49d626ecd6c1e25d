import type { StopCondition, ToolSet } from 'ai';
import type { UsageCost } from '../core/cost.js';

/**
 * A `stopWhen` condition: true once the run's steps so far cost more than `maxUsd` at list prices
 * (what `result.cost` adds up). It is checked after each tool step, so the run ends `completed` at
 * the step boundary after the step that crossed the budget: it can end one step over it.
 *
 * Only steps with a known price count (see `finish-step`'s `cost`): with a model the price
 * catalogue does not know, every step costs nothing here and the budget never stops the run.
 * Outside loopchart (the AI SDK's own agents give their steps no cost) it never holds.
 *
 * @example
 * ```ts
 * import { isStepCount } from 'ai';
 * import { createAgent, isCostOver } from 'loopchart';
 *
 * const agent = createAgent({ model, tools, stopWhen: [isCostOver(0.5), isStepCount(40)] });
 * ```
 * @throws RangeError when `maxUsd` is not a finite number of at least 0.
 */
export function isCostOver<TOOLS extends ToolSet = ToolSet>(maxUsd: number): StopCondition<TOOLS> {
  if (!Number.isFinite(maxUsd) || maxUsd < 0) throw new RangeError(`isCostOver(maxUsd): expected a finite number of US dollars, at least 0; got ${String(maxUsd)}`);
  return ({ steps }) => {
    let total = 0;
    // loopchart's stop-condition steps carry the step's cost (see StopConditionStep).
    for (const step of steps as ReadonlyArray<{ cost?: UsageCost }>) total += step.cost?.total ?? 0;
    return total > maxUsd;
  };
}
