import type { UsageCost } from '../core/cost.js';

/**
 * A cost for people: dollars with four decimals, and two significant digits below a tenth of a cent.
 *
 * @example
 * formatCost({ total: 0.012345, input: 0.01, output: 0.002345, currency: 'USD' }); // '$0.0123'
 * formatCost({ total: 0.00021, input: 0.00015, output: 0.00006, currency: 'USD' }); // '$0.00021'
 */
export function formatCost(cost: UsageCost): string {
  const { total } = cost;
  // toFixed, not toPrecision: a tiny cost stays a decimal (toPrecision writes 1.0e-7).
  const decimals = total > 0 && total < 0.001 ? Math.min(20, 1 - Math.floor(Math.log10(total))) : 4;
  return `$${total.toFixed(decimals)}`;
}
