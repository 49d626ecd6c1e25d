import type { LanguageModelV4, LanguageModelV4CallOptions, LanguageModelV4Message } from '@ai-sdk/provider';
import { scriptedModel, type ScriptTurn } from 'loopchart/test';
import { paymentRequestIn } from './payment-request.js';

export interface DemoModelOptions {
  /** Pause between streamed words, so the page shows the text arriving. Default 40 ms. */
  chunkDelayMs?: number;
}

/**
 * An offline stand-in for a real model, played by the scripted model: a prompt
 * that names a payment ("Pay 120 to Ada") gets a `send_payment` call, and the
 * call's result — sent, denied or failed — gets a one-line answer.
 */
export function demoModel({ chunkDelayMs = 40 }: DemoModelOptions = {}): LanguageModelV4 {
  const modelFor = (options: LanguageModelV4CallOptions) => scriptedModel([{ ...nextTurn(options.prompt), chunkDelayMs }], { modelId: 'demo' });
  return {
    specificationVersion: 'v4',
    provider: 'loopchart-demo',
    modelId: 'demo',
    supportedUrls: {},
    doStream: (options) => modelFor(options).doStream(options),
    doGenerate: (options) => modelFor(options).doGenerate(options),
  };
}

function nextTurn(prompt: LanguageModelV4Message[]): ScriptTurn {
  const last = prompt.at(-1);
  if (last?.role === 'tool') return answerTo(last);
  const payment = paymentRequestIn(lastUserText(prompt));
  if (!payment) return { text: 'Tell me whom to pay and how much, for example “Pay 120 to Ada”.' };
  // One assistant message per model call, so this numbers the calls of the whole chat.
  const callId = `call-${prompt.filter((message) => message.role === 'assistant').length + 1}`;
  return { text: `I will send ${payment.amount} to ${payment.to}.`, toolCalls: [{ id: callId, name: 'send_payment', input: payment }] };
}

function answerTo(message: Extract<LanguageModelV4Message, { role: 'tool' }>): ScriptTurn {
  const result = message.content.find((part) => part.type === 'tool-result');
  const output = result?.output;
  if (output?.type === 'json') {
    const { sent, to, balance } = output.value as { sent: number; to: string; balance: number };
    return { text: `Done: ${sent} went to ${to}. Your balance is now ${balance}.` };
  }
  // loopchart tells the model about a denial in words (docs/ai-sdk.md); ToolLoopAgent sends `execution-denied`.
  const denied = output?.type === 'execution-denied' || (output?.type === 'error-text' && output.value.startsWith('The user denied'));
  if (denied) return { text: 'All right, I did not send the payment.' };
  const why = output?.type === 'error-text' ? output.value : 'no result';
  return { text: `The payment did not go through: ${why}` };
}

function lastUserText(prompt: LanguageModelV4Message[]): string {
  const user = prompt.findLast((message) => message.role === 'user');
  return (user?.content ?? []).map((part) => (part.type === 'text' ? part.text : '')).join(' ');
}
