import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import type { Instructions, ModelMessage } from 'ai';
import { knownBeginning } from '../core/history.js';
import type { MessageList } from '../core/message-history.js';
import { aiInternals } from './ai-internals.js';

type ConvertOptions = Omit<Parameters<typeof aiInternals.convertToLanguageModelPrompt>[0], 'prompt'>;

interface ConvertedHistory {
  /** The history this conversion was made from, and how many of its messages it covers. */
  source: MessageList;
  count: number;
  provider: string | undefined;
  supportedUrls: ConvertOptions['supportedUrls'];
  /**
   * The converted messages; the first `length` are this history's (the AI SDK merges consecutive tool
   * messages, so there may be fewer than `count`). Never handed out: the next conversion of a longer
   * history appends to it, and each caller gets a copy.
   */
  converted: LanguageModelV4Prompt;
  length: number;
}

/**
 * The newest conversion of each growing history, by its last message: the next call's history usually
 * begins with it. An entry is dropped once a longer history has taken its place, so a session keeps one
 * entry, not one per call (each of which held a copy of the whole history).
 */
const conversions = new WeakMap<ModelMessage, ConvertedHistory>();

/** How far back from the end of a history its previous conversion is looked for (a step adds a few messages). */
const LOOK_BACK = 16;

/**
 * The AI SDK's `standardizePrompt` and `convertToLanguageModelPrompt`, checking and converting only
 * what was added since the last call. A history only grows between calls, so the converted messages
 * of its unchanged beginning are reused and only the new messages are checked (no system message,
 * not empty) and converted: a call's cost no longer grows with the session, but for the one copy of
 * the converted messages the provider gets.
 * The beginning counts as unchanged only when every message is the same object as before (a
 * compaction or a `transformContext` makes new ones, and the whole history is converted again),
 * and never when a tool message would have to merge with one converted earlier.
 *
 * @throws InvalidPromptError as `standardizePrompt` does, for an empty history or a system message in it.
 */
export async function convertPromptIncrementally(
  instructions: Instructions | undefined,
  messages: MessageList,
  options: ConvertOptions,
  internals: Pick<typeof aiInternals, 'standardizePrompt' | 'convertToLanguageModelPrompt'> = aiInternals,
): Promise<LanguageModelV4Prompt> {
  const convert = async (part: ModelMessage[], withInstructions: Instructions | undefined) =>
    internals.convertToLanguageModelPrompt({ ...options, prompt: await internals.standardizePrompt({ instructions: withInstructions, messages: part }) });
  const earlier = reusableConversion(messages, options);
  let converted: LanguageModelV4Prompt;
  let length: number;
  if (earlier === undefined) {
    converted = await convert(messages.slice(), undefined);
    length = converted.length;
  } else if (earlier.count === messages.length) {
    ({ converted, length } = earlier);
  } else {
    const added = await convert(messages.slice(earlier.count), undefined);
    // Another history went on from the same beginning: this one gets an array of its own.
    converted = earlier.converted.length === earlier.length ? earlier.converted : earlier.converted.slice(0, earlier.length);
    for (const message of added) converted.push(message);
    length = converted.length;
  }
  const last = messages.at(-1);
  if (last !== undefined) {
    if (earlier !== undefined && earlier.count < messages.length) conversions.delete(messages.at(earlier.count - 1)!);
    conversions.set(last, { source: messages, count: messages.length, provider: options.provider, supportedUrls: options.supportedUrls, converted, length });
  }
  if (instructions === undefined) return converted.slice(0, length);
  const own = converted.length === length ? converted : converted.slice(0, length);
  const system = await internals.convertToLanguageModelPrompt({ ...options, prompt: { instructions, messages: [] } });
  return system.concat(own);
}

function reusableConversion(messages: MessageList, options: ConvertOptions): ConvertedHistory | undefined {
  const earlier = knownBeginning(messages, conversions, LOOK_BACK);
  if (earlier === undefined || earlier.provider !== options.provider || earlier.supportedUrls !== options.supportedUrls) return undefined;
  // The AI SDK merges consecutive tool messages into one: that merge cannot span two conversions.
  if (earlier.converted[earlier.length - 1]?.role === 'tool' && messages.at(earlier.count)?.role === 'tool') return undefined;
  return earlier;
}
