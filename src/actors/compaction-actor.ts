import type { LanguageModel, ModelMessage } from 'ai';
import { fromPromise } from 'xstate';
import { contextBudget, type CompactionConfig, type CompactionReason } from '../context/compaction-config.js';
import { findCutPoint } from '../context/cut-point.js';
import { applyPruning, selectPrunableToolResults } from '../context/prune-tool-outputs.js';
import { DEFAULT_SUMMARY_INSTRUCTIONS, summaryMessage, summaryPrompt, summaryText } from '../context/summary.js';
import { estimateTokens } from '../context/token-estimate.js';
import { errorMessage } from '../errors/error-message.js';
import type { StepFunction, StepRequest } from './step.js';

export interface CompactionActorInput {
  reason: CompactionReason;
  /** The context's size now, as the machine counts it (the provider's last count plus estimates). */
  tokensBefore: number;
  messages: ModelMessage[];
  config: CompactionConfig;
}

export type CompactionActorOutput =
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
 */
export function createCompactionActor(model: LanguageModel, step: StepFunction) {
  return fromPromise<CompactionActorOutput, CompactionActorInput>(async ({ input, signal }) => {
    const { config, messages } = input;
    const budget = contextBudget(config);
    const prunable = selectPrunableToolResults(messages, config.protectToolOutputTokens);
    // Savings are estimated and taken off the provider-informed count, which also covers what the
    // estimate cannot see (tool definitions, provider framing).
    const prunedTokens = input.tokensBefore - (estimateTokens(messages) - estimateTokens(applyPruning(messages, prunable)));
    if (input.reason === 'threshold' && prunable.length > 0 && prunedTokens <= budget) {
      return { kind: 'pruned', prunedToolCallIds: prunable, tokensAfter: prunedTokens };
    }

    const previous = summaryText(messages[0]);
    const from = previous === undefined ? 0 : 1;
    const cut = findCutPoint(messages, config.keepRecentTokens, from);
    if (cut === 0) {
      throw new Error(`nothing to summarise: the newest messages alone are more than keepRecentTokens (${config.keepRecentTokens})`);
    }
    const summary = await summarise(step, {
      model,
      instructions: config.instructions ?? DEFAULT_SUMMARY_INSTRUCTIONS,
      messages: [{ role: 'user', content: summaryPrompt(messages.slice(from, cut), previous) }],
      tools: {},
      abortSignal: signal,
    });
    const compacted = [summaryMessage(summary), ...messages.slice(cut)];
    const tokensAfter = input.tokensBefore - estimateTokens(messages) + estimateTokens(compacted);
    if (tokensAfter > budget) throw new Error(`the context still does not fit after compaction (${tokensAfter} tokens, budget ${budget})`);
    return { kind: 'summarised', messages: compacted, summarisedMessages: cut - from, tokensAfter };
  });
}

/** One model call through the same step seam as the llm actor; the summary is its text. */
async function summarise(step: StepFunction, request: StepRequest): Promise<string> {
  const chunks: string[] = [];
  for await (const part of step(request)) {
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
}
