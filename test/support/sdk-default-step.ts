/** Stands in for src/model-call/default-step.ts in the `sdk-step` test project: the agent tests run again on the AI SDK's own step. */
export { streamLanguageModelCallStep as defaultStep } from '../../src/model-call/stream-language-model-call-step.js';
export const defaultStepName = 'streamLanguageModelCallStep';
