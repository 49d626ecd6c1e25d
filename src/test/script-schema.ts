import { z } from 'zod';

const finishReasonSchema = z.enum([
  'stop',
  'length',
  'content-filter',
  'tool-calls',
  'error',
  'interrupted',
  'other',
]);

const scriptedToolCallSchema = z.strictObject({
  id: z.string().optional(),
  name: z.string(),
  /** An object is sent as JSON; a string is sent verbatim, so a script can send malformed JSON. */
  input: z.unknown(),
});

const scriptedErrorSchema = z.strictObject({
  /** HTTP status. Absent: a network failure (connection reset) instead of an HTTP error. */
  status: z.number().int().min(100).max(599).optional(),
  message: z.string(),
  headers: z.record(z.string(), z.string()).optional(),
  body: z.string().optional(),
  /**
   * `'start'` (default): the call itself fails, like a provider whose HTTP request failed.
   * A number: the stream fails after that many text deltas.
   */
  after: z.union([z.literal('start'), z.number().int().nonnegative()]).optional(),
});

const deltasSchema = z.union([z.string(), z.array(z.string())]);

/**
 * One model response in a script. A string `text`/`reasoning` is streamed in
 * chunks (words by default); an array is streamed as exactly those deltas.
 */
/** The longest wait a scripted turn may ask for: longer is a typo (or an attempt to hang a run), not a test. */
export const MAX_SCRIPT_DELAY_MS = 600_000;

export const scriptTurnSchema = z.strictObject({
  text: deltasSchema.optional(),
  reasoning: deltasSchema.optional(),
  toolCalls: z.array(scriptedToolCallSchema).optional(),
  /** Default: `'tool-calls'` when the turn has tool calls, else `'stop'`. */
  finishReason: finishReasonSchema.optional(),
  /**
   * Default: an estimate of one token per four characters of prompt and output. The details
   * (`noCacheTokens` … `reasoningTokens`, the AI SDK's `LanguageModelUsage` details) are sent as
   * given when any is set, so a recorded run replays the provider's figures exactly.
   */
  usage: z
    .strictObject({
      inputTokens: z.number().int().nonnegative().optional(),
      outputTokens: z.number().int().nonnegative().optional(),
      noCacheTokens: z.number().int().nonnegative().optional(),
      cacheReadTokens: z.number().int().nonnegative().optional(),
      cacheWriteTokens: z.number().int().nonnegative().optional(),
      textTokens: z.number().int().nonnegative().optional(),
      reasoningTokens: z.number().int().nonnegative().optional(),
    })
    .optional(),
  /** Wait before the first part, at most {@link MAX_SCRIPT_DELAY_MS}. */
  delayMs: z.number().nonnegative().max(MAX_SCRIPT_DELAY_MS, { message: `at most ${MAX_SCRIPT_DELAY_MS} ms (10 minutes)` }).optional(),
  /** Wait between parts, at most {@link MAX_SCRIPT_DELAY_MS}. */
  chunkDelayMs: z.number().nonnegative().max(MAX_SCRIPT_DELAY_MS, { message: `at most ${MAX_SCRIPT_DELAY_MS} ms (10 minutes)` }).optional(),
  error: scriptedErrorSchema.optional(),
  /** After sending all its content, send nothing more until aborted. */
  stall: z.boolean().optional(),
  /** Close the stream without a `finish` part. */
  endWithoutFinish: z.boolean().optional(),
});

export type ScriptTurn = z.infer<typeof scriptTurnSchema>;
export type ScriptedToolCall = z.infer<typeof scriptedToolCallSchema>;
export type ScriptedError = z.infer<typeof scriptedErrorSchema>;
