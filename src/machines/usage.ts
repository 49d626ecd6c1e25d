import type { LanguageModelUsage } from 'ai';

/** Token usage summed over the LLM calls of a run. Missing provider figures count as 0. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}

export const emptyUsage: Usage = Object.freeze({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });

/** Normalises the AI SDK's usage (fields may be undefined) into plain numbers. */
export function usageFrom(usage: Partial<LanguageModelUsage> | undefined): Usage {
  const inputTokens = usage?.inputTokens ?? 0;
  const outputTokens = usage?.outputTokens ?? 0;
  return { inputTokens, outputTokens, totalTokens: usage?.totalTokens ?? inputTokens + outputTokens };
}

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  };
}
