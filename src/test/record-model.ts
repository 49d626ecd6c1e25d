import type { LanguageModelV4, LanguageModelV4GenerateResult, LanguageModelV4StreamResult } from '@ai-sdk/provider';
import { wrapLanguageModel, type LanguageModel, type LanguageModelMiddleware } from 'ai';
import { asProviderModel } from '../model-call/ai-internals.js';
import { observedStream } from './record-stream.js';
import { TurnRecorder } from './record-turn.js';
import type { ScriptTurn } from './script-schema.js';

/** A model wrapped by {@link recordModel}, and what it has recorded. */
export interface ModelRecording {
  /** The wrapped model: use it in place of the original. */
  model: LanguageModelV4;
  /** One ScriptTurn per call made so far, in call order (a copy). Each validates against scriptTurnSchema. */
  turns(): ScriptTurn[];
}

/**
 * Wraps a language model so that every call it answers is recorded as a
 * {@link ScriptTurn}: `scriptedModel(recording.turns())` then replays the run
 * offline, with the same text and reasoning deltas, tool calls (ids included),
 * finish reasons, usage totals and failures. The wrapped model passes every
 * part, result and error through unchanged; recording costs O(1) per part.
 *
 * What a turn holds:
 * - a rejected call: `error` (HTTP status, message, headers and body of an
 *   `APICallError`; no status for anything else, which replays as a network
 *   failure);
 * - an `error` part, or a stream that errors: `error` with `after` set to the
 *   number of text deltas streamed before it, next to what streamed. The
 *   replay sends the reasoning and those deltas, then fails: with an `error`
 *   part for an `APICallError` with a status, else as a reset connection; it
 *   sends none of the turn's tool calls and no `finish`;
 * - a stream that closes without a `finish` part: `endWithoutFinish: true`;
 * - an aborted call (or a stream its reader cancelled): only what arrived
 *   before the abort. Replayed, such a turn sends that content and then
 *   finishes normally (with the recorded finish reason, else the scripted
 *   model's default) unless the replaying call is aborted too;
 * - a `doGenerate` call: its text, reasoning and tool calls from `content`.
 *
 * Not recorded: delays (the replay streams as fast as it is read), response
 * metadata, warnings, provider metadata, raw finish reasons, usage details
 * beyond the input and output totals, files, sources, provider-executed tool
 * calls and their results, and how parts interleave: the replay sends
 * reasoning, then text, then each tool call's input as one delta. A tool
 * input that is a JSON object is replayed as `JSON.stringify` of it, so
 * whitespace inside it is not kept; any other input string is kept verbatim.
 *
 * @example
 * const recording = recordModel(openai.chat('gpt-4o-mini'));
 * await createAgent({ model: recording.model, tools }).run('How warm is it in Oslo?');
 * await writeFile('oslo.json', JSON.stringify(recording.turns(), null, 2));
 * // later, offline and exactly:
 * const turns = JSON.parse(await readFile('oslo.json', 'utf8')) as ScriptTurn[];
 * await createAgent({ model: scriptedModel(turns), tools }).run('How warm is it in Oslo?');
 */
export function recordModel(model: LanguageModel): ModelRecording {
  const recorders: TurnRecorder[] = [];

  const startTurn = (abortSignal: AbortSignal | undefined): TurnRecorder => {
    const recorder = new TurnRecorder(abortSignal);
    recorders.push(recorder);
    return recorder;
  };

  const recording: LanguageModelMiddleware = {
    specificationVersion: 'v4',

    async wrapStream({ doStream, params }) {
      const recorder = startTurn(params.abortSignal);
      let result: LanguageModelV4StreamResult;
      try {
        result = await doStream();
      } catch (error) {
        recorder.recordFailure(error);
        throw error;
      }
      recorder.recordStreamStarted();
      const stream = observedStream(result.stream, {
        part: (part) => recorder.recordStreamPart(part),
        close: () => recorder.recordStreamClosed(),
        error: (error) => recorder.recordFailure(error),
      });
      return { ...result, stream };
    },

    async wrapGenerate({ doGenerate, params }) {
      const recorder = startTurn(params.abortSignal);
      let result: LanguageModelV4GenerateResult;
      try {
        result = await doGenerate();
      } catch (error) {
        recorder.recordFailure(error);
        throw error;
      }
      recorder.recordGeneration(result);
      return result;
    },
  };

  return {
    model: wrapLanguageModel({ model: asProviderModel(model), middleware: recording }),
    turns: () => recorders.map((recorder) => structuredClone(recorder.toScriptTurn())),
  };
}
