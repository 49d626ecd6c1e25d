import { describe, expect, it } from 'vitest';
import { paymentRequestIn } from '../../examples/use-chat-approvals/payment-request.js';

describe('paymentRequestIn', () => {
  it('reads the amount and the payee after "to"', () => {
    expect(paymentRequestIn('Pay 120 to Ada for the flowers')).toEqual({ to: 'Ada', amount: 120 });
    expect(paymentRequestIn('please send 12.50 to Zoë')).toEqual({ to: 'Zoë', amount: 12.5 });
  });

  it('finds no payment in a prompt without an amount and a payee', () => {
    expect(paymentRequestIn('What is my balance?')).toBeUndefined();
    expect(paymentRequestIn('Pay Ada')).toBeUndefined();
    expect(paymentRequestIn('Pay 30 to')).toBeUndefined();
  });
});
