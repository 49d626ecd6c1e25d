import { DIRECT_STEP_INTERNALS, missingAiInternals } from './ai-internals.js';
import { directStep } from './direct-step.js';
import type { StepFunction } from '../core/step.js';
import { streamLanguageModelCallStep } from './stream-language-model-call-step.js';

/**
 * `directStep` when the installed `ai` exports every helper it needs (`missing` is empty),
 * otherwise `streamLanguageModelCallStep`, which uses public AI SDK API only.
 */
export function chooseDefaultStep(missing: readonly string[]): { step: StepFunction; name: 'directStep' | 'streamLanguageModelCallStep' } {
  return missing.length === 0 ? { step: directStep, name: 'directStep' } : { step: streamLanguageModelCallStep, name: 'streamLanguageModelCallStep' };
}

const chosen = chooseDefaultStep(missingAiInternals(DIRECT_STEP_INTERNALS));

/**
 * The step implementation `createAgent` uses unless `step` is given: `directStep`, which reads
 * the provider stream itself (see docs/performance.md for the trade-off), unless the installed
 * `ai` lacks one of its `ai/internal` helpers. The test suite also runs the agent tests with
 * `streamLanguageModelCallStep` in this place.
 */
export const defaultStep = chosen.step;
export const defaultStepName = chosen.name;
