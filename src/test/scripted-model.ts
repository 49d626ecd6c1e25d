import {
  APICallError,
  type LanguageModelV4,
  type LanguageModelV4CallOptions,
  type LanguageModelV4Content,
  type LanguageModelV4FinishReason,
  type LanguageModelV4GenerateResult,
  type LanguageModelV4Prompt,
  type LanguageModelV4StreamPart,
  type LanguageModelV4StreamResult,
  type LanguageModelV4Usage,
} from '@ai-sdk/provider';
import { abortableDelay, abortErrorFor, pullStream, untilAborted } from './pull-stream.js';
import { scriptTurnSchema, type ScriptedError, type ScriptTurn } from './script-schema.js';
import { partCharacters, tokensForCharacters } from '../context/token-estimate.js';
import { z } from 'zod';
import { parseOptions } from '../core/options-check.js';

export interface ScriptedModelOptions {
  /** Default: `'scripted'`. */
  modelId?: string;
  /** Stream string `text` and `reasoning` in chunks of this many characters instead of word by word. */
  chunkSize?: number;
}

/** A `LanguageModelV4` that plays back a script, one turn per call. */
export interface ScriptedModel extends LanguageModelV4 {
  /** The options of every call so far, in order, including the prompt the model was sent. */
  readonly calls: LanguageModelV4CallOptions[];
  doStream(options: LanguageModelV4CallOptions): Promise<LanguageModelV4StreamResult>;
  doGenerate(options: LanguageModelV4CallOptions): Promise<LanguageModelV4GenerateResult>;
}

/**
 * A language model that answers each call with the next turn of a script,
 * streaming the parts a real provider would send, and failing, stalling or
 * honouring aborts the way a real provider does.
 *
 * A turn's `error` with `after: 'start'` (the default) rejects the call with an
 * `APICallError`, or, without a `status`, with the `TypeError('fetch failed')`
 * of a reset connection. With `after: n` the stream sends an `error` part after
 * `n` text deltas and closes; without a `status` the stream itself errors with
 * the `TypeError('terminated')` of a connection reset mid-body. `doGenerate`
 * answers with the same turn, unstreamed, and fails any scripted error at the start.
 *
 * @throws {ZodError} when a turn does not match {@link scriptTurnSchema}.
 *
 * @example
 * const model = scriptedModel([
 *   { toolCalls: [{ name: 'readFile', input: { path: 'README.md' } }] },
 *   { text: 'The README explains how to install the library.' },
 * ]);
 * const result = streamText({ model, tools, prompt: 'Summarise the README', stopWhen: stepCountIs(2) });
 * console.log(await result.text);
 * console.log(model.calls[1]?.prompt); // what the model saw on the second call
 */
export function scriptedModel(
  turns: readonly ScriptTurn[],
  options: ScriptedModelOptions = {},
): ScriptedModel {
  const { modelId = 'scripted' } = parseOptions('scriptedModel', z.strictObject({ modelId: z.string().min(1).optional(), chunkSize: z.unknown().optional() }), options);
  const { chunkSize } = options;
  if (chunkSize !== undefined && !(Number.isInteger(chunkSize) && chunkSize > 0)) {
    throw new RangeError(`chunkSize must be a positive integer, got ${chunkSize}`);
  }
  const script = scriptTurnSchema.array().parse(turns);
  const calls: LanguageModelV4CallOptions[] = [];

  const takeNextTurn = (options: LanguageModelV4CallOptions): { turn: ScriptTurn; turnNumber: number } => {
    calls.push(options);
    const turnNumber = calls.length;
    const turn = script[turnNumber - 1];
    if (turn === undefined) throw new Error(scriptExhaustedMessage(script.length, turnNumber));
    return { turn, turnNumber };
  };

  return {
    specificationVersion: 'v4',
    provider: 'scripted',
    modelId,
    supportedUrls: {},
    calls,

    async doStream(options): Promise<LanguageModelV4StreamResult> {
      const { turn, turnNumber } = takeNextTurn(options);
      const signal = options.abortSignal;
      const requestBody = requestBodyFor(modelId, options);
      if (signal?.aborted) throw abortErrorFor(signal);

      if (turn.error !== undefined && (turn.error.after ?? 'start') === 'start') {
        if (turn.delayMs) await abortableDelay(turn.delayMs, signal);
        throw failedRequestError(turn.error, requestBody);
      }

      const parts = streamParts(turn, { turnNumber, modelId, chunkSize, prompt: options.prompt, requestBody });
      return {
        stream: pullStream(pacedPartSource(parts, turn, signal), { signal }),
        request: { body: requestBody },
      };
    },

    async doGenerate(options): Promise<LanguageModelV4GenerateResult> {
      const { turn, turnNumber } = takeNextTurn(options);
      const signal = options.abortSignal;
      const requestBody = requestBodyFor(modelId, options);
      if (signal?.aborted) throw abortErrorFor(signal);
      if (turn.delayMs) await abortableDelay(turn.delayMs, signal);
      if (turn.error !== undefined) throw failedRequestError(turn.error, requestBody);
      if (turn.stall) await untilAborted(signal);

      const text = joined(turn.text);
      const reasoning = joined(turn.reasoning);
      const toolCalls = (turn.toolCalls ?? []).map((call, index) => ({
        type: 'tool-call' as const,
        toolCallId: call.id ?? defaultToolCallId(turnNumber, index),
        toolName: call.name,
        input: toolInputText(call.input),
      }));
      const content: LanguageModelV4Content[] = [
        ...(reasoning ? [{ type: 'reasoning' as const, text: reasoning }] : []),
        ...(text ? [{ type: 'text' as const, text }] : []),
        ...toolCalls,
      ];
      const output: OutputCharacters = {
        text: text.length,
        reasoning: reasoning.length,
        toolInputs: toolCalls.reduce((sum, call) => sum + call.input.length, 0),
      };
      return {
        content,
        finishReason: finishReasonOf(turn),
        usage: usageOf(turn, options.prompt, output),
        warnings: [],
        request: { body: requestBody },
        response: { id: responseId(turnNumber), modelId, timestamp: new Date() },
      };
    },
  };
}

const SCRIPTED_URL = 'scripted://model';

interface StreamContext {
  turnNumber: number;
  modelId: string;
  chunkSize: number | undefined;
  prompt: LanguageModelV4Prompt;
  requestBody: unknown;
}

/** How a turn's stream ends once its parts are sent. */
type StreamEnding = 'close' | 'stall';

interface OutputCharacters {
  text: number;
  reasoning: number;
  toolInputs: number;
}

function* streamParts(
  turn: ScriptTurn,
  { turnNumber, modelId, chunkSize, prompt, requestBody }: StreamContext,
): Generator<LanguageModelV4StreamPart, StreamEnding> {
  const output: OutputCharacters = { text: 0, reasoning: 0, toolInputs: 0 };
  // Blocks are numbered in order, as providers number content blocks.
  const reasoningBlockId = '0';
  const textBlockId = hasContent(turn.reasoning) ? '1' : '0';

  yield { type: 'stream-start', warnings: [] };
  yield { type: 'response-metadata', id: responseId(turnNumber), modelId, timestamp: new Date() };

  if (hasContent(turn.reasoning)) {
    const id = reasoningBlockId;
    yield { type: 'reasoning-start', id };
    for (const delta of deltasOf(turn.reasoning, chunkSize)) {
      output.reasoning += delta.length;
      yield { type: 'reasoning-delta', id, delta };
    }
    yield { type: 'reasoning-end', id };
  }

  const midStreamError = midStreamErrorOf(turn);
  const failMidStream = (error: ScriptedError): Generator<LanguageModelV4StreamPart, StreamEnding> =>
    midStreamFailure(error, requestBody);

  if (midStreamError?.afterTextDeltas === 0) return yield* failMidStream(midStreamError.error);
  if (hasContent(turn.text)) {
    const id = textBlockId;
    yield { type: 'text-start', id };
    let sentDeltas = 0;
    for (const delta of deltasOf(turn.text, chunkSize)) {
      output.text += delta.length;
      yield { type: 'text-delta', id, delta };
      sentDeltas++;
      if (sentDeltas === midStreamError?.afterTextDeltas) return yield* failMidStream(midStreamError.error);
    }
    if (midStreamError === undefined) yield { type: 'text-end', id };
  }
  // The script asked for more text deltas before the error than the turn has.
  if (midStreamError !== undefined) return yield* failMidStream(midStreamError.error);

  for (const [index, call] of (turn.toolCalls ?? []).entries()) {
    const toolCallId = call.id ?? defaultToolCallId(turnNumber, index);
    const input = toolInputText(call.input);
    output.toolInputs += input.length;
    yield { type: 'tool-input-start', id: toolCallId, toolName: call.name };
    if (input.length > 0) yield { type: 'tool-input-delta', id: toolCallId, delta: input };
    yield { type: 'tool-input-end', id: toolCallId };
    yield { type: 'tool-call', toolCallId, toolName: call.name, input };
  }

  if (turn.stall) return 'stall';
  if (turn.endWithoutFinish) return 'close';
  yield { type: 'finish', finishReason: finishReasonOf(turn), usage: usageOf(turn, prompt, output) };
  return 'close';
}

function midStreamErrorOf(turn: ScriptTurn): { error: ScriptedError; afterTextDeltas: number } | undefined {
  const after = turn.error?.after;
  return turn.error !== undefined && typeof after === 'number' ? { error: turn.error, afterTextDeltas: after } : undefined;
}

function* midStreamFailure(
  error: ScriptedError,
  requestBody: unknown,
): Generator<LanguageModelV4StreamPart, StreamEnding> {
  if (error.status === undefined) {
    throw new TypeError('terminated', { cause: connectionReset(error.message) });
  }
  yield { type: 'error', error: apiCallError({ ...error, status: error.status }, requestBody) };
  return 'close';
}

/** Turns the generator into a pull source that waits `delayMs` before the first part and `chunkDelayMs` before each later one. */
function pacedPartSource(
  parts: Generator<LanguageModelV4StreamPart, StreamEnding>,
  { delayMs = 0, chunkDelayMs = 0 }: ScriptTurn,
  signal: AbortSignal | undefined,
): () => LanguageModelV4StreamPart | undefined | Promise<LanguageModelV4StreamPart | undefined> {
  let isFirstPart = true;
  return () => {
    const result = parts.next();
    if (result.done) return result.value === 'stall' ? untilAborted(signal) : undefined;
    const wait = isFirstPart ? delayMs : chunkDelayMs;
    isFirstPart = false;
    return wait > 0 ? abortableDelay(wait, signal).then(() => result.value) : result.value;
  };
}

function* deltasOf(content: string | readonly string[], chunkSize: number | undefined): Generator<string> {
  if (typeof content !== 'string') {
    yield* content;
    return;
  }
  if (chunkSize !== undefined) {
    for (let start = 0; start < content.length; start += chunkSize) yield content.slice(start, start + chunkSize);
    return;
  }
  // Each word with the whitespace before it; trailing whitespace as a last delta.
  const words = /\s*\S+|\s+/g;
  for (let match = words.exec(content); match !== null; match = words.exec(content)) yield match[0];
}

function hasContent(content: string | readonly string[] | undefined): content is string | readonly string[] {
  return content !== undefined && content.length > 0;
}

function joined(content: string | readonly string[] | undefined): string {
  if (content === undefined) return '';
  return typeof content === 'string' ? content : content.join('');
}

function toolInputText(input: unknown): string {
  if (typeof input === 'string') return input;
  return JSON.stringify(input ?? {});
}

function defaultToolCallId(turnNumber: number, index: number): string {
  return `call-${turnNumber}-${index + 1}`;
}

function responseId(turnNumber: number): string {
  return `scripted-response-${turnNumber}`;
}

function finishReasonOf(turn: ScriptTurn): LanguageModelV4FinishReason {
  const unified = turn.finishReason ?? (turn.toolCalls?.length ? 'tool-calls' : 'stop');
  return { unified, raw: unified };
}

function usageOf(turn: ScriptTurn, prompt: LanguageModelV4Prompt, output: OutputCharacters): LanguageModelV4Usage {
  const given = turn.usage;
  const details = ['noCacheTokens', 'cacheReadTokens', 'cacheWriteTokens', 'textTokens', 'reasoningTokens'] as const;
  if (given !== undefined && details.some((name) => given[name] !== undefined)) {
    return {
      inputTokens: { total: given.inputTokens, noCache: given.noCacheTokens, cacheRead: given.cacheReadTokens, cacheWrite: given.cacheWriteTokens },
      outputTokens: { total: given.outputTokens, text: given.textTokens, reasoning: given.reasoningTokens },
    };
  }
  const inputTokens = turn.usage?.inputTokens ?? tokensForCharacters(promptCharacters(prompt));
  const estimatedReasoningTokens = tokensForCharacters(output.reasoning);
  const outputTokens =
    turn.usage?.outputTokens ?? tokensForCharacters(output.text + output.toolInputs) + estimatedReasoningTokens;
  const reasoningTokens = Math.min(estimatedReasoningTokens, outputTokens);
  return {
    inputTokens: { total: inputTokens, noCache: inputTokens, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: outputTokens, text: outputTokens - reasoningTokens, reasoning: reasoningTokens },
  };
}

function promptCharacters(prompt: LanguageModelV4Prompt): number {
  let characters = 0;
  for (const message of prompt) {
    if (typeof message.content === 'string') characters += message.content.length;
    else for (const part of message.content) characters += partCharacters(part);
  }
  return characters;
}

function requestBodyFor(modelId: string, { prompt, tools, toolChoice }: LanguageModelV4CallOptions): unknown {
  return { model: modelId, prompt, tools, toolChoice };
}

function failedRequestError(error: ScriptedError, requestBody: unknown): Error {
  if (error.status === undefined) {
    return new TypeError('fetch failed', { cause: connectionReset(error.message) });
  }
  return apiCallError({ ...error, status: error.status }, requestBody);
}

/** Built as a provider's failed-response handler builds it from an HTTP error response. */
function apiCallError(
  { status, message, headers = {}, body = '' }: ScriptedError & { status: number },
  requestBodyValues: unknown,
): APICallError {
  return new APICallError({
    message,
    url: SCRIPTED_URL,
    requestBodyValues,
    statusCode: status,
    responseHeaders: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value])),
    responseBody: body,
    data: parsedJsonOrUndefined(body),
    isRetryable: status === 408 || status === 409 || status === 429 || status >= 500,
  });
}

/** The error Node's fetch puts in `cause` when the server resets the connection. */
function connectionReset(message: string): Error {
  return Object.assign(new Error(message), { code: 'ECONNRESET', errno: -104, syscall: 'read' });
}

function parsedJsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function scriptExhaustedMessage(turnCount: number, requestedTurn: number): string {
  const turns = `${turnCount} ${turnCount === 1 ? 'turn' : 'turns'}`;
  return `the script has ${turns}; the run asked for ${indefiniteArticleFor(requestedTurn)} ${ordinal(requestedTurn)}`;
}

function ordinal(n: number): string {
  const lastTwoDigits = n % 100;
  if (lastTwoDigits >= 11 && lastTwoDigits <= 13) return `${n}th`;
  const suffixByLastDigit: Record<number, string> = { 1: 'st', 2: 'nd', 3: 'rd' };
  return `${n}${suffixByLastDigit[n % 10] ?? 'th'}`;
}

/** "an" before numbers read with a leading vowel sound: 8th, 11th, 18th, 80th, 800th, 11000th... */
function indefiniteArticleFor(n: number): 'a' | 'an' {
  const digits = String(n);
  const leadingGroup = digits.slice(0, digits.length % 3 || 3);
  return leadingGroup.startsWith('8') || leadingGroup === '11' || leadingGroup === '18' ? 'an' : 'a';
}
