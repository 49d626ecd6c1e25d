import { injectJsonInstructionIntoMessages } from '@ai-sdk/provider-utils';
import type { CallWarning, Instructions, LanguageModel, Output } from 'ai';

/** What a call sends for a structured output: its instructions, and what it says of them. */
export interface StructuredOutputInstructions {
  instructions: Instructions | undefined;
  /** Set when the schema went into the instructions. */
  warnings: CallWarning[];
}

/**
 * Whether the model is known to drop a JSON schema from its response format: it says so with
 * `supportsStructuredOutputs: false`, as `@ai-sdk/openai-compatible` chat models do unless their
 * provider was created with `supportsStructuredOutputs: true`. A model that does not say (every
 * other provider, which sends the schema in its own form) is taken to send it.
 *
 * @example
 * dropsResponseSchema(createOpenAICompatible({ name: 'local', baseURL }).chatModel('qwen')) // true
 * dropsResponseSchema(openai.chat('gpt-4.1')) // false
 */
export function dropsResponseSchema(model: LanguageModel): boolean {
  return typeof model === 'object' && (model as { supportsStructuredOutputs?: unknown }).supportsStructuredOutputs === false;
}

/**
 * The instructions of a call with a structured output. When the model drops the schema from its
 * response format (see {@link dropsResponseSchema}), the schema goes into the instructions in the
 * AI SDK's words (`injectJsonInstructionIntoMessages`: `JSON schema: {…}` and `You MUST answer with
 * a JSON object that matches the JSON schema above.`), and a `compatibility` warning says so and
 * how to send it as a response format instead. Otherwise the instructions are the call's own.
 * The response format itself is left as the AI SDK makes it.
 *
 * @example
 * const { instructions, warnings } = await structuredOutputInstructions({ model, instructions: 'Be brief.', output: Output.object({ schema }) });
 */
export async function structuredOutputInstructions({
  model,
  instructions,
  output,
}: {
  model: LanguageModel;
  instructions: Instructions | undefined;
  output: Output.Output | undefined;
}): Promise<StructuredOutputInstructions> {
  if (output === undefined || !dropsResponseSchema(model)) return { instructions, warnings: [] };
  const format = await output.responseFormat;
  if (format?.type !== 'json' || format.schema === undefined) return { instructions, warnings: [] };
  return { instructions: withSchema(instructions, format.schema), warnings: [schemaInInstructionsWarning] };
}

type JsonSchema = NonNullable<Parameters<typeof injectJsonInstructionIntoMessages>[0]['schema']>;

function withSchema(instructions: Instructions | undefined, schema: JsonSchema): Instructions {
  const inject = (content: string) => {
    const [system] = injectJsonInstructionIntoMessages({ messages: content === '' ? [] : [{ role: 'system', content }], schema });
    return system!.role === 'system' ? system!.content : content;
  };
  if (instructions === undefined) return inject('');
  if (typeof instructions === 'string') return inject(instructions);
  // System messages keep their own provider options: the schema comes after them, in one of its own.
  return [...[instructions].flat(), { role: 'system', content: inject('') }];
}

/** The warning a call whose schema went into the instructions carries. */
export const schemaInInstructionsWarning: CallWarning = {
  type: 'compatibility',
  feature: 'responseFormat',
  details:
    'The output schema went into the instructions: this model drops a JSON schema from its response format (supportsStructuredOutputs is off). ' +
    'If its server takes JSON schema response formats, create the provider with supportsStructuredOutputs: true (loopchart run: --structured-outputs).',
};
