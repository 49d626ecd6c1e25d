import type { LanguageModel } from 'ai';
import type { AgentOptions } from 'loopchart';
import { paymentTools, type Ledger } from './payment-tools.js';

const INSTRUCTIONS =
  'You send payments for the user with send_payment and answer in one sentence. ' +
  'When the user denies a payment, do not try it again.';

/** The chat's agent: the payment tool, whose own `needsApproval` decides what waits for the user. */
export function paymentAgentOptions(model: LanguageModel, ledger: Ledger): AgentOptions {
  return { model, instructions: INSTRUCTIONS, tools: paymentTools(ledger), maxSteps: 5 };
}
