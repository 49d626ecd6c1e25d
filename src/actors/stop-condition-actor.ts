import type { StepResult, StopCondition, ToolSet } from 'ai';
import { fromPromise } from 'xstate';
import type { UsageCost } from '../core/cost.js';

/**
 * What a `stopWhen` condition reads of a step, as the AI SDK names it. Only these fields are
 * filled: the machine keeps a small record per step rather than the AI SDK's whole `StepResult`.
 * Beyond the AI SDK's fields, `cost`: what the step cost, when its model's price is known (read
 * by `isCostOver`).
 */
export type StopConditionStep = Pick<
  StepResult<ToolSet>,
  'stepNumber' | 'text' | 'finishReason' | 'usage' | 'toolCalls' | 'staticToolCalls' | 'dynamicToolCalls' | 'toolResults' | 'staticToolResults' | 'dynamicToolResults'
> & { cost?: UsageCost };

export interface StopConditionActorInput {
  /** The run's finished steps, the last one included. */
  steps: StopConditionStep[];
}

/**
 * The stop-condition actor: after a step's tool results are in, runs the `stopWhen` conditions
 * (the AI SDK's `StopCondition`: `isStepCount(n)`, `hasToolCall(name)` or your own, which may be
 * async) on the run's steps, in the `running.checkingStop` state. Its output is whether any holds;
 * a condition that throws rejects it, and the run ends `failed`.
 *
 * @example
 * ```ts
 * const stopCondition = createStopConditionActor([hasToolCall('finalAnswer'), isStepCount(10)]);
 * agentMachine.provide({ actors: { stopCondition } });
 * ```
 */
export function createStopConditionActor(conditions: ReadonlyArray<StopCondition<ToolSet>>) {
  return fromPromise<boolean, StopConditionActorInput>(async ({ input }) => {
    // The machine fills the fields of StepResult that stop conditions read (see StopConditionStep).
    const steps = input.steps as Parameters<StopCondition<ToolSet>>[0]['steps'];
    const results = await Promise.all(conditions.map(async (condition) => condition({ steps })));
    return results.some((met) => met);
  });
}
