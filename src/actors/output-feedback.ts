import type { ModelMessage } from 'ai';
import { MessageHistory, type MessageList } from '../core/message-history.js';

/** A final answer the agent's `output` rejected, kept until the step's next attempt: what the model wrote, and what did not match. */
export interface RejectedOutput {
  text: string;
  problem: string;
}

/**
 * The messages of a step's next attempt after its answer was rejected by the agent's `output`:
 * the history, then the rejected answer and a user message that says what did not match and asks
 * again — the AI SDK's re-ask strategy (as in its `repairToolCall` example). The history itself is
 * left as it was: neither message enters it.
 *
 * @example
 * withOutputFeedback(history, { text: '{"celsius":"warm"}', problem: 'celsius: Invalid input: expected number, received string' })
 * // [...history, { role: 'assistant', … }, { role: 'user', content: 'Your answer was rejected: … Answer again …' }]
 */
export function withOutputFeedback(messages: MessageList, rejected: RejectedOutput): MessageHistory {
  const feedback: ModelMessage[] = [];
  // An empty assistant text is refused by some providers; the user message says what was wrong either way.
  if (rejected.text.trim() !== '') feedback.push({ role: 'assistant', content: [{ type: 'text', text: rejected.text }] });
  feedback.push({ role: 'user', content: outputFeedbackText(rejected.problem) });
  return MessageHistory.from(messages).append(...feedback);
}

/** What the model reads when its answer was rejected. */
export function outputFeedbackText(problem: string): string {
  return `Your answer was rejected: it does not have the required output format. ${problem}\nAnswer again with only the corrected answer, in the required format.`;
}
