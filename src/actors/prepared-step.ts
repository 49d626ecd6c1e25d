import type { Instructions, LanguageModel, ModelMessage, PrepareStepResult, ToolChoice, ToolSet } from 'ai';

/** What loopchart takes from a `prepareStep` result: the step's call with these in place of the agent's. */
export interface PreparedStep {
  model?: LanguageModel;
  instructions?: Instructions;
  messages?: ModelMessage[];
  /** The tools offered, when `activeTools` named a subset. */
  activeTools?: string[];
  toolChoice?: ToolChoice<ToolSet>;
}

const HONOURED = new Set(['model', 'instructions', 'system', 'messages', 'activeTools', 'toolChoice']);

/**
 * A `prepareStep` result as loopchart applies it, or a `TypeError` naming each field it would
 * otherwise ignore (call settings, `toolsContext`, `providerOptions`, …). `system` is the AI SDK's
 * older name of `instructions`. Pure.
 *
 * @example
 * ```ts
 * preparedStep({ activeTools: [], system: 'Answer now.' }); // { activeTools: [], instructions: 'Answer now.' }
 * preparedStep({ temperature: 0 });                        // TypeError: prepareStep returned temperature, …
 * ```
 */
export function preparedStep(result: PrepareStepResult<ToolSet> | undefined | null): PreparedStep {
  if (result === undefined || result === null) return {};
  if (typeof result !== 'object') throw new TypeError(`prepareStep returned ${typeof result}; expected an object or undefined`);
  const ignored = Object.entries(result).filter(([key, value]) => value !== undefined && !HONOURED.has(key)).map(([key]) => key);
  if (ignored.length > 0) {
    throw new TypeError(
      `prepareStep returned ${ignored.join(', ')}, which loopchart does not apply (it applies model, instructions, messages, activeTools and toolChoice); call settings go with the model (wrapLanguageModel with defaultSettingsMiddleware)`,
    );
  }
  const instructions = result.instructions ?? result.system;
  if (result.activeTools !== undefined && !Array.isArray(result.activeTools)) throw new TypeError('prepareStep returned activeTools that is not an array of tool names');
  if (result.messages !== undefined && !Array.isArray(result.messages)) throw new TypeError('prepareStep returned messages that is not an array of messages');
  return {
    ...(result.model !== undefined ? { model: result.model } : {}),
    ...(instructions !== undefined ? { instructions } : {}),
    ...(result.messages !== undefined ? { messages: result.messages } : {}),
    ...(result.activeTools !== undefined ? { activeTools: result.activeTools.map(String) } : {}),
    ...(result.toolChoice !== undefined ? { toolChoice: result.toolChoice } : {}),
  };
}

/** The tools of `tools` that `activeTools` names (all of them without a list). */
export function activeToolSet(tools: ToolSet, activeTools: readonly string[] | undefined): ToolSet {
  if (activeTools === undefined) return tools;
  const active = new Set(activeTools);
  return Object.fromEntries(Object.entries(tools).filter(([name]) => active.has(name)));
}
