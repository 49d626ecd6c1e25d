import type { Payment } from './payment-tools.js';

/**
 * The payment a prompt asks for, as the offline demo model reads it: an amount
 * and the name after "to" ("Pay 120 to Ada", "send 12.50 to Bob for lunch"),
 * or undefined when the prompt names no such payment.
 *
 * @example
 * paymentRequestIn('Please pay 120 to Ada for the flowers'); // { to: 'Ada', amount: 120 }
 */
export function paymentRequestIn(text: string): Payment | undefined {
  const match = /(\d+(?:\.\d{1,2})?)\s+to\s+([\p{L}][\p{L}'-]*)/iu.exec(text);
  if (!match) return undefined;
  return { to: match[2]!, amount: Number(match[1]) };
}
