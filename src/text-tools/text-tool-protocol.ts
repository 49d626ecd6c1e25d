import type {
  LanguageModelV4CallOptions,
  LanguageModelV4FunctionTool,
  LanguageModelV4Middleware,
  LanguageModelV4StreamPart,
  SharedV4Warning,
} from '@ai-sdk/provider';
import { InvalidArgumentError } from '@ai-sdk/provider';
import { createIdGenerator } from 'ai';
import { toolCallsFromTextContent } from './tool-call-content.js';
import { toolCallsFromTextStream } from './tool-call-stream.js';
import { toolHistoryAsText, withInstructions } from './tool-history-as-text.js';
import { toolInstructions } from './tool-instructions.js';
import { z } from 'zod';
import { parseOptions } from '../core/options-check.js';
import { functionOption } from '../core/function-option.js';
import { closestName } from '../core/closest-name.js';

export interface TextToolProtocolOptions {
  /** Makes the id of each tool call found in the text. Default: `call-` and 24 random characters. */
  generateToolCallId?: () => string;
}

/** What `transformParams` decided for one call, for `wrapStream` and `wrapGenerate` to act on. */
interface CallPlan {
  parseToolCalls: boolean;
  warnings: SharedV4Warning[];
}

/**
 * A language-model middleware that lets any model use tools through plain
 * text. The tools and their JSON Schemas go into the system prompt together
 * with the protocol, and the native `tools` and `toolChoice` are removed from
 * the call; earlier tool calls and results in the prompt are rewritten as
 * protocol text. Each
 * `<use_tool><tool_name>NAME</tool_name><arguments>{JSON}</arguments></use_tool>`
 * block in the model's answer becomes a native tool call (streamed or not),
 * with malformed JSON repaired where possible. See docs/text-tools.md.
 *
 * @example
 * ```ts
 * import { wrapLanguageModel } from 'ai';
 * import { createAgent } from 'loopchart';
 * import { textToolProtocol } from 'loopchart/text-tools';
 *
 * // someTextOnlyModel: a model without native tool calls, e.g. ollama('gemma3')
 * const model = wrapLanguageModel({ model: someTextOnlyModel, middleware: textToolProtocol() });
 * const agent = createAgent({ model, tools, instructions: 'Answer briefly.' });
 * const result = await agent.run('How warm is it in Oslo?');
 * ```
 */
export function textToolProtocol(options: TextToolProtocolOptions = {}): LanguageModelV4Middleware {
  parseOptions('textToolProtocol', z.strictObject({ generateToolCallId: functionOption<() => string>().optional() }), options);
  const generateToolCallId = options.generateToolCallId ?? createIdGenerator({ prefix: 'call', size: 24 });
  const plans = new WeakMap<LanguageModelV4CallOptions, CallPlan>();

  return {
    specificationVersion: 'v4',

    transformParams: async ({ params }) => {
      const { tools = [], toolChoice, ...callWithoutTools } = params;
      // Offering no tools at all would leave the model's blocks as plain text, the choice ignored.
      if (toolChoice?.type === 'tool' && !tools.some((tool) => isFunctionTool(tool) && tool.name === toolChoice.toolName)) {
        throw unofferableToolChoice(toolChoice.toolName, tools);
      }
      const offered = offeredTools(tools.filter(isFunctionTool), toolChoice);
      let prompt = toolHistoryAsText(params.prompt);
      if (offered.length > 0) prompt = withInstructions(prompt, toolInstructions(offered, toolChoice));
      const transformed: LanguageModelV4CallOptions = { ...callWithoutTools, prompt };
      plans.set(transformed, {
        parseToolCalls: offered.length > 0,
        warnings: tools
          .filter((tool) => tool.type === 'provider')
          .map((tool) => ({
            type: 'unsupported',
            feature: `provider tool ${tool.name}`,
            details: 'The text tool protocol offers only function tools; this tool was left out.',
          })),
      });
      return transformed;
    },

    wrapStream: async ({ doStream, params }) => {
      const plan = plans.get(params);
      const { stream, ...rest } = await doStream();
      let parts = stream;
      if (plan?.warnings.length) parts = parts.pipeThrough(addingWarnings(plan.warnings));
      if (plan?.parseToolCalls) parts = parts.pipeThrough(toolCallsFromTextStream({ generateToolCallId }));
      return { ...rest, stream: parts };
    },

    wrapGenerate: async ({ doGenerate, params }) => {
      const plan = plans.get(params);
      let result = await doGenerate();
      if (plan?.warnings.length) result = { ...result, warnings: [...result.warnings, ...plan.warnings] };
      return plan?.parseToolCalls ? toolCallsFromTextContent(result, generateToolCallId) : result;
    },
  };
}

type CallTool = NonNullable<LanguageModelV4CallOptions['tools']>[number];

function isFunctionTool(tool: CallTool): tool is LanguageModelV4FunctionTool {
  return tool.type === 'function';
}

/** Why a `{ type: 'tool', toolName }` choice cannot be honoured: the call has no function tool of that name. */
function unofferableToolChoice(toolName: string, tools: readonly CallTool[]): InvalidArgumentError {
  const functionToolNames = tools.filter(isFunctionTool).map((tool) => tool.name);
  const offered = `its function tools are ${functionToolNames.length > 0 ? functionToolNames.join(', ') : 'none'}`;
  const meant = closestName(toolName, functionToolNames);
  const why = tools.some((tool) => tool.type === 'provider' && tool.name === toolName)
    ? `a provider tool, which the text tool protocol cannot offer; ${offered}`
    : `which this call does not offer${meant !== undefined ? ` (did you mean "${meant}"?)` : ''}; ${offered}`;
  return new InvalidArgumentError({ argument: 'toolChoice', message: `textToolProtocol: toolChoice names the tool "${toolName}", ${why}` });
}

/** The tools the model is told about: none for `toolChoice: 'none'`, only the named one for a specific choice. */
function offeredTools(
  tools: LanguageModelV4FunctionTool[],
  toolChoice: LanguageModelV4CallOptions['toolChoice'],
): LanguageModelV4FunctionTool[] {
  if (toolChoice?.type === 'none') return [];
  if (toolChoice?.type === 'tool') return tools.filter((tool) => tool.name === toolChoice.toolName);
  return tools;
}

function addingWarnings(warnings: SharedV4Warning[]): TransformStream<LanguageModelV4StreamPart, LanguageModelV4StreamPart> {
  return new TransformStream({
    transform(part, controller) {
      controller.enqueue(part.type === 'stream-start' ? { ...part, warnings: [...part.warnings, ...warnings] } : part);
    },
  });
}
