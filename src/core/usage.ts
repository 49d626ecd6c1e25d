import type { LanguageModelUsage } from 'ai';

type TokenDetails = Pick<LanguageModelUsage, 'inputTokenDetails' | 'outputTokenDetails'>;

const noDetails = (): TokenDetails => ({
  inputTokenDetails: { noCacheTokens: undefined, cacheReadTokens: undefined, cacheWriteTokens: undefined },
  outputTokenDetails: { textTokens: undefined, reasoningTokens: undefined },
});

/** No tokens yet: the start of every sum. */
export const emptyUsage: LanguageModelUsage = Object.freeze({ inputTokens: 0, outputTokens: 0, totalTokens: 0, ...noDetails() });

/**
 * The AI SDK's usage of one call as loopchart keeps it: the same `LanguageModelUsage`, with the
 * three totals always numbers (a figure the provider did not report counts as 0) and the details
 * as the provider gave them (`undefined` when not reported).
 */
export function usageFrom(usage: Partial<LanguageModelUsage> | undefined): LanguageModelUsage {
  const inputTokens = usage?.inputTokens ?? 0;
  const outputTokens = usage?.outputTokens ?? 0;
  const details = noDetails();
  return {
    inputTokens,
    outputTokens,
    totalTokens: usage?.totalTokens ?? inputTokens + outputTokens,
    inputTokenDetails: { ...details.inputTokenDetails, ...usage?.inputTokenDetails },
    outputTokenDetails: { ...details.outputTokenDetails, ...usage?.outputTokenDetails },
  };
}

/**
 * Whether a provider reported no token counts for a call at all (a proxy that drops the usage
 * chunk, a server that ignores `stream_options.include_usage`): its tokens then count as 0 and its
 * price as $0, which a cost budget must not take for the truth. Pure.
 *
 * @example
 * isUsageUnreported({ inputTokens: undefined, outputTokens: undefined, totalTokens: undefined }); // true
 */
export function isUsageUnreported(usage: Partial<LanguageModelUsage> | undefined): boolean {
  return usage?.inputTokens === undefined && usage?.outputTokens === undefined && usage?.totalTokens === undefined;
}

/**
 * What does not add up in a usage report, or undefined when it does: a count that is negative or
 * not a whole number, cache reads and writes above the input total, reasoning above the output
 * total. The price catalogue refuses such a report, so a priced call counts as $0. Pure.
 *
 * @example
 * usageProblem(usageFrom({ inputTokens: 1000, outputTokens: 500, inputTokenDetails: { cacheReadTokens: 2000 } })) // 'cache reads and writes (2000) above the input tokens (1000)'
 * usageProblem(usageFrom({ inputTokens: 10, outputTokens: 2 })) // undefined
 */
export function usageProblem(usage: LanguageModelUsage): string | undefined {
  const counts: Array<[string, number | undefined]> = [
    ['input tokens', usage.inputTokens],
    ['output tokens', usage.outputTokens],
    ['cache reads', usage.inputTokenDetails?.cacheReadTokens],
    ['cache writes', usage.inputTokenDetails?.cacheWriteTokens],
    ['reasoning tokens', usage.outputTokenDetails?.reasoningTokens],
  ];
  for (const [name, count] of counts) {
    if (count !== undefined && !(Number.isSafeInteger(count) && count >= 0)) return `${name}: ${count}, not a whole number of 0 or more`;
  }
  const cached = (usage.inputTokenDetails?.cacheReadTokens ?? 0) + (usage.inputTokenDetails?.cacheWriteTokens ?? 0);
  if (usage.inputTokens !== undefined && cached > usage.inputTokens) return `cache reads and writes (${cached}) above the input tokens (${usage.inputTokens})`;
  const reasoning = usage.outputTokenDetails?.reasoningTokens;
  if (reasoning !== undefined && usage.outputTokens !== undefined && reasoning > usage.outputTokens) return `reasoning tokens (${reasoning}) above the output tokens (${usage.outputTokens})`;
  return undefined;
}

/** `undefined` only while neither side reported the figure, as the AI SDK sums usage. */
function addCount(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined && b === undefined ? undefined : (a ?? 0) + (b ?? 0);
}

/** The sum of two usages (the provider's `raw` figures are per call and are not summed). */
export function addUsage(a: LanguageModelUsage, b: LanguageModelUsage): LanguageModelUsage {
  // Checkpoints written before usage carried details have none: read them as unreported.
  const aIn: Partial<LanguageModelUsage['inputTokenDetails']> = a.inputTokenDetails ?? {};
  const bIn: Partial<LanguageModelUsage['inputTokenDetails']> = b.inputTokenDetails ?? {};
  const aOut: Partial<LanguageModelUsage['outputTokenDetails']> = a.outputTokenDetails ?? {};
  const bOut: Partial<LanguageModelUsage['outputTokenDetails']> = b.outputTokenDetails ?? {};
  return {
    inputTokens: (a.inputTokens ?? 0) + (b.inputTokens ?? 0),
    outputTokens: (a.outputTokens ?? 0) + (b.outputTokens ?? 0),
    totalTokens: (a.totalTokens ?? 0) + (b.totalTokens ?? 0),
    inputTokenDetails: {
      noCacheTokens: addCount(aIn.noCacheTokens, bIn.noCacheTokens),
      cacheReadTokens: addCount(aIn.cacheReadTokens, bIn.cacheReadTokens),
      cacheWriteTokens: addCount(aIn.cacheWriteTokens, bIn.cacheWriteTokens),
    },
    outputTokenDetails: {
      textTokens: addCount(aOut.textTokens, bOut.textTokens),
      reasoningTokens: addCount(aOut.reasoningTokens, bOut.reasoningTokens),
    },
  };
}
