import type { LanguageModel, ModelMessage } from 'ai';
import { fromPromise } from 'xstate';
import { contextBudget, type CompactionConfig, type CompactionReason } from '../core/compaction-config.js';
import { findCutPoint } from '../context/cut-point.js';
import { applyPruning, selectPrunableToolResults } from '../context/prune-tool-outputs.js';
import { DEFAULT_SUMMARY_INSTRUCTIONS, summaryMessage, summaryPrompt, summaryText } from '../context/summary.js';
import { estimateTokens } from '../context/token-estimate.js';
import { errorMessage } from '../core/error-message.js';
import type { AgentRuntime, ContextTransform } from '../core/runtime.js';
import type { StepFunction, StepRequest } from '../core/step.js';
import { isBodyChunk, StepWatchdog, type StepLimits } from './step-watchdog.js';

export interface CompactionActorInput {
  reason: CompactionReason;
  /** The context's size now, as the machine counts it (the provider's last count plus estimates, pruning included). */
  tokensBefore: number;
  /** The history as it is kept (nothing pruned). */
  messages: ModelMessage[];
  /** Tool results already hidden from the model: what is sent is `applyPruning(messages, prunedToolCallIds)`. */
  prunedToolCallIds: string[];
  config: CompactionConfig;
  /** The time limits of an LLM call (`timeout.firstChunkMs`, `chunkMs`, `stepMs`): the summariser's call is one. */
  limits: StepLimits;
}

export type CompactionActorOutput =
  /** `prunedToolCallIds`: every pruned result, the earlier ones included. */
  | { kind: 'pruned'; prunedToolCallIds: string[]; tokensAfter: number }
  | { kind: 'summarised'; messages: ModelMessage[]; summarisedMessages: number; tokensAfter: number };

/**
 * The compaction actor. Pruning first (cheap): tool outputs older than the
 * newest `protectToolOutputTokens` are hidden from the model; if that alone
 * brings a threshold compaction under budget, no summary is made. Otherwise
 * the messages before a cut point are summarised by the model (an earlier
 * summary is updated, not redone) and the newest `keepRecentTokens` stay
 * verbatim. It fails closed: nothing to summarise, a failing summariser or a
 * result that still does not fit all reject, and the run ends `context-limit`.
 *
 * Every saving is measured against what is sent: the history with the
 * earlier prunings applied, so a pruning is never counted twice. The
 * summariser's call is an LLM call like the agent's: `transformContext` sees
 * its messages (a redacting transform keeps secrets from it too), and the
 * call's time limits apply to it.
 */
export function createCompactionActor(model: LanguageModel, step: StepFunction, transformContext?: ContextTransform, admit?: AgentRuntime['admit']) {
  return fromPromise<CompactionActorOutput, CompactionActorInput>(async ({ input, signal }) => {
    const { config, messages } = input;
    const budget = contextBudget(config);
    const sent = applyPruning(messages, input.prunedToolCallIds);
    // Already-pruned results carry the marker, so only new ones are selected, and only their savings count.
    const prunable = selectPrunableToolResults(sent, config.protectToolOutputTokens);
    // Savings are estimated and taken off the provider-informed count, which also covers what the
    // estimate cannot see (tool definitions, provider framing).
    const prunedTokens = input.tokensBefore - (estimateTokens(sent) - estimateTokens(applyPruning(sent, prunable)));
    if (input.reason === 'threshold' && prunable.length > 0 && prunedTokens <= budget) {
      return { kind: 'pruned', prunedToolCallIds: [...input.prunedToolCallIds, ...prunable], tokensAfter: prunedTokens };
    }

    const previous = summaryText(messages[0]);
    const from = previous === undefined ? 0 : 1;
    const cut = findCutPoint(messages, config.keepRecentTokens, from);
    if (cut === 0) {
      throw new Error(`nothing to summarise: the newest messages alone are more than keepRecentTokens (${config.keepRecentTokens})`);
    }
    let request: ModelMessage[] = [{ role: 'user', content: summaryPrompt(sent.slice(from, cut), previous) }];
    if (transformContext) {
      const transformed = await transformContext(request, { signal });
      if (!Array.isArray(transformed)) throw new Error('transformContext returned no message array for the summariser');
      request = transformed;
    }
    await admit?.('model-call');
    const summary = await summarise(
      step,
      { model, instructions: config.instructions ?? DEFAULT_SUMMARY_INSTRUCTIONS, messages: request, tools: {}, abortSignal: signal },
      input.limits,
    );
    const compacted = [summaryMessage(summary), ...messages.slice(cut)];
    const tokensAfter = input.tokensBefore - estimateTokens(sent) + estimateTokens(applyPruning(compacted, input.prunedToolCallIds));
    if (tokensAfter > budget) throw new Error(`the context still does not fit after compaction (${tokensAfter} tokens, budget ${budget})`);
    return { kind: 'summarised', messages: compacted, summarisedMessages: cut - from, tokensAfter };
  });
}

/**
 * One model call through the same step seam as the llm actor, under the same
 * time limits (a stalled summariser is aborted, not waited for until
 * `totalMs`); the summary is its text.
 */
async function summarise(step: StepFunction, request: StepRequest, limits: StepLimits): Promise<string> {
  const controller = new AbortController();
  const abort = () => controller.abort(request.abortSignal.reason);
  if (request.abortSignal.aborted) abort();
  else request.abortSignal.addEventListener('abort', abort, { once: true });
  let timedOut: string | undefined;
  const watchdog = new StepWatchdog(limits, (message) => {
    timedOut = message;
    controller.abort(new Error(message));
  });
  const chunks: string[] = [];
  try {
    for await (const part of step({ ...request, abortSignal: controller.signal })) {
      if (isBodyChunk(part)) watchdog.chunk();
      if (part.type === 'text-delta') chunks.push(part.text);
      else if (part.type === 'error') throw new Error(`the summariser failed: ${errorMessage(part.error)}`);
      else if (part.type === 'finish') {
        if (part.finishReason !== 'stop' && part.finishReason !== 'other') throw new Error(`the summariser stopped with finishReason "${part.finishReason}"`);
        const text = chunks.join('').trim();
        if (text === '') throw new Error('the summariser returned no text');
        return text;
      }
    }
    throw new Error('the summariser stream ended without a finish');
  } catch (error) {
    throw timedOut !== undefined ? new Error(`the summariser timed out: ${timedOut}`) : error;
  } finally {
    watchdog.stop();
    request.abortSignal.removeEventListener('abort', abort);
  }
}
