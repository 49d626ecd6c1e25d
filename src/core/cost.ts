/**
 * What a run's or a step's LLM usage cost at the provider's list prices, as the price catalogue
 * `@pydantic/genai-prices` prices it. Present only when the model's price is known.
 *
 * @example
 * const result = await agent.run('Summarise the README');
 * if (result.cost) console.log(`$${result.cost.total.toFixed(4)}`); // e.g. $0.0123
 */
export interface UsageCost {
  /** The whole cost: `input` plus `output`. */
  total: number;
  /** The input tokens' share, cache reads and writes at their own rates included. */
  input: number;
  /** The output tokens' share, reasoning tokens included. */
  output: number;
  currency: 'USD';
}

/** The cost of two usages together (each priced on its own: tiered prices depend on each call's size). */
export function addCosts(a: UsageCost, b: UsageCost): UsageCost {
  return { total: a.total + b.total, input: a.input + b.input, output: a.output + b.output, currency: 'USD' };
}
