import type { IncomingMessage, ServerResponse } from 'node:http';
import { lastAssistantMessageIsCompleteWithApprovalResponses, pipeAgentUIStreamToResponse, safeValidateUIMessages, type UIMessage } from 'ai';
import { toAISDKAgent } from 'loopchart/ai-sdk';
import { isSessionId, type ChatSessions } from '../chat-server/chat-sessions.js';
import { HttpError, readJsonObject } from '../chat-server/http-json.js';

/**
 * `POST /api/chat` with the body `useChat`'s `DefaultChatTransport` sends,
 * `{ id, messages, trigger, messageId }`: the chat's agent, as an AI SDK
 * `Agent` with its default approvals, streams the answer as the UI message
 * stream. A call that needs approval ends the stream at the request; the
 * page's `addToolApprovalResponse` answers it, and `sendAutomaticallyWhen`
 * sends the conversation again, which continues the waiting run.
 */
export async function handlePaymentChat(request: IncomingMessage, response: ServerResponse, chats: ChatSessions): Promise<void> {
  const { id, messages } = await readJsonObject(request);
  if (!isSessionId(id)) throw new HttpError(400, 'id (the chat id useChat sends) must be 1-128 letters, digits, dots, dashes or underscores, not starting with a dot.');
  const uiMessages = await conversation(messages);
  const agent = await chats.open(id);
  const answersApprovals = uiMessages.at(-1)!.role === 'assistant';
  if (!answersApprovals && agent.isRunning) {
    const waiting = agent.pendingApprovals.length > 0 ? `answer its pending approvals (${agent.pendingApprovals.join(', ')})` : 'wait for it to end';
    throw new HttpError(409, `Chat "${id}" is in the middle of a run: ${waiting}.`, { pendingApprovals: agent.pendingApprovals });
  }
  const disconnected = new AbortController();
  response.once('close', () => {
    if (!response.writableFinished) disconnected.abort();
  });
  await pipeAgentUIStreamToResponse({
    response,
    agent: toAISDKAgent(agent),
    uiMessages,
    abortSignal: disconnected.signal,
    // The AI SDK sends "An error occurred." unless told otherwise; the run's own messages are safe to show here.
    onError: (error) => (error instanceof Error ? error.message : String(error)),
  });
}

/**
 * The request's UI messages, checked: they end with the user's new message, or
 * with the assistant message whose approval requests have all been answered
 * (what `useChat` sends after `addToolApprovalResponse`).
 */
export async function conversation(messages: unknown): Promise<UIMessage[]> {
  const validated = await safeValidateUIMessages({ messages });
  if (!validated.success) throw new HttpError(400, `messages must be a non-empty array of AI SDK UI messages: ${validated.error.message}`);
  const last = validated.data.at(-1);
  const isPrompt = last?.role === 'user' && last.parts.some((part) => part.type === 'text' && part.text.trim() !== '');
  if (!isPrompt && !lastAssistantMessageIsCompleteWithApprovalResponses({ messages: validated.data })) {
    throw new HttpError(400, 'The last message must be a user message with text, or an assistant message whose approval requests are all answered.');
  }
  return validated.data;
}
