/**
 * The step implementation `createAgent` uses unless `step` is given:
 * `directStep`, which reads the provider stream itself (see
 * docs/performance.md for the trade-off). The test suite also runs the agent
 * tests with `streamLanguageModelCallStep` in this place.
 */
export { directStep as defaultStep } from './direct-step.js';
export const defaultStepName = 'directStep';
