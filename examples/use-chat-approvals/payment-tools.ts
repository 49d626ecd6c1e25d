import { tool, type ToolSet } from 'ai';
import { z } from 'zod';

/** Payments above this amount wait for the user's approval; smaller ones are sent at once. */
export const APPROVAL_THRESHOLD = 50;

export interface Payment {
  to: string;
  amount: number;
}

/** The account the demo pays from, in memory, so that the page and a test can see what was really paid. */
export class Ledger {
  private readonly sent: Payment[] = [];

  constructor(private balance = 1000) {}

  /** Every payment sent so far, oldest first. */
  get payments(): readonly Payment[] {
    return this.sent;
  }

  /** @throws Error when the balance does not cover the amount. */
  pay(payment: Payment): { sent: number; to: string; balance: number } {
    if (payment.amount > this.balance) throw new Error(`The balance (${this.balance}) does not cover ${payment.amount}.`);
    this.balance -= payment.amount;
    this.sent.push(payment);
    return { sent: payment.amount, to: payment.to, balance: this.balance };
  }
}

/**
 * `send_payment`, declared the AI SDK's way: `needsApproval` is a function of
 * the input, so a payment above {@link APPROVAL_THRESHOLD} waits for the user
 * and a smaller one runs at once. loopchart honours it as `ToolLoopAgent` does.
 */
export function paymentTools(ledger: Ledger): ToolSet {
  return {
    send_payment: tool({
      description: `Sends money from the user's account. Payments above ${APPROVAL_THRESHOLD} wait for the user's approval.`,
      inputSchema: z.object({ to: z.string().min(1), amount: z.number().positive() }),
      needsApproval: async ({ amount }) => amount > APPROVAL_THRESHOLD,
      execute: async ({ to, amount }) => ledger.pay({ to, amount }),
    }),
  };
}
