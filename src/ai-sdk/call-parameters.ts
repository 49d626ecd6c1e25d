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
 * Throws a `TypeError` naming each parameter of a `generate()` or `stream()` call that the adapter
 * would otherwise ignore. Pure.
 *
 * @example
 * ```ts
 * assertHonouredCallParameters({ prompt: 'hi', onStart: () => {} });
 * // TypeError: toAISDKAgent: onStart is not supported (use agent.events$ …)
 * ```
 */
export function assertHonouredCallParameters(parameters: object): void {
  const refused = Object.entries(parameters).filter(([key, value]) => value !== undefined && Object.hasOwn(UNHONOURED, key));
  if (refused.length === 0) return;
  throw new TypeError(`toAISDKAgent: ${refused.map(([key]) => `${key} is not supported (${UNHONOURED[key]})`).join('; ')}`);
}
