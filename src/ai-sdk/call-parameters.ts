import { unsupportedAISDKOptions } from '../options.js';

/**
 * `generate()` / `stream()` parameters of the AI SDK's `Agent` that the adapter honours as
 * `ToolLoopAgent` does (`experimental_transform` in `generate()` too: `ToolLoopAgent` passes it to
 * `generateText`, which has no transforms, and so does the adapter).
 */
const HONOURED = new Set([
  'prompt',
  'messages',
  'abortSignal',
  'onStepStart',
  'experimental_onStepStart',
  'onToolExecutionStart',
  'experimental_onToolCallStart',
  'onToolExecutionEnd',
  'experimental_onToolCallFinish',
  'onStepEnd',
  'onStepFinish',
  'onEnd',
  'onFinish',
  'experimental_transform',
]);

/**
 * `generate()` / `stream()` parameters of the AI SDK's `Agent` that the adapter does not honour,
 * with what to use instead: refused, never accepted and ignored.
 */
const UNHONOURED: Record<string, string> = {
  options: 'loopchart agents take no call options: build the agent with what the call needs',
  timeout: "a loopchart agent's time limits are its own: createAgent({ timeout })",
  onStart: "use agent.events$ (its run-start event), or onStepStart",
  experimental_onStart: "use agent.events$ (its run-start event), or onStepStart",
  experimental_steering: 'steer a loopchart run with agent.steer(message) (the next step sees it) or agent.followUp(message)',
  experimental_sandbox: 'loopchart runs tools where they are: bash has its own sandbox (builtinTools({ bash: { sandbox } }))',
};

/**
 * Why a parameter outside the `Agent` interface is refused: `ToolLoopAgent` passes every other
 * parameter on to `streamText` / `generateText`, so that `temperature`, `toolChoice`, `system`, …
 * change that call; a loopchart agent's settings are its own.
 */
function outsideInterface(key: string): string {
  const setting = unsupportedAISDKOptions[key];
  const instead = setting !== undefined ? `; for a loopchart agent it is ${setting}` : ': a loopchart agent takes its settings once, in createAgent';
  return `not a parameter of the AI SDK's Agent, which ToolLoopAgent passes on to streamText for this call${instead}`;
}

/**
 * Throws a `TypeError` naming each parameter of a `generate()` or `stream()` call that the adapter
 * would otherwise ignore: the `Agent` parameters it does not honour, and any other one (which
 * `ToolLoopAgent` would pass on to `streamText`). Pure.
 *
 * @example
 * ```ts
 * assertHonouredCallParameters({ prompt: 'hi', onStart: () => {} });
 * // TypeError: toAISDKAgent: onStart is not supported (use agent.events$ …)
 * assertHonouredCallParameters({ prompt: 'hi', temperature: 0 });
 * // TypeError: toAISDKAgent: temperature is not supported (not a parameter of the AI SDK's Agent, …)
 * ```
 */
export function assertHonouredCallParameters(parameters: object): void {
  const refused = Object.entries(parameters).filter(([key, value]) => value !== undefined && !HONOURED.has(key));
  if (refused.length === 0) return;
  const reason = (key: string) => (Object.hasOwn(UNHONOURED, key) ? UNHONOURED[key] : outsideInterface(key));
  throw new TypeError(`toAISDKAgent: ${refused.map(([key]) => `${key} is not supported (${reason(key)})`).join('; ')}`);
}
