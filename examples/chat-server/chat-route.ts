import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeAgentUIStreamToResponse, safeValidateUIMessages, type UIMessage } from 'ai';
import { toAISDKAgent } from 'loopchart/ai-sdk';
import { isSessionId, type ChatSessions } from './chat-sessions.js';
import { HttpError, readJsonObject } from './http-json.js';

/** What the page reads from the stream's `finish` chunk: how the run ended. */
export interface RunMetadata {
  outcome: string;
}

/**
 * `POST /api/chat` with `{ sessionId, messages }`: runs the session's agent on
 * the new user messages and streams the run as the AI SDK's UI message stream
 * (server-sent events). The stream stays open while a tool call waits for
 * approval; the answer comes through the approval endpoints.
 */
export async function handleChat(request: IncomingMessage, response: ServerResponse, sessions: ChatSessions): Promise<void> {
  const { sessionId, messages } = await readJsonObject(request);
  if (!isSessionId(sessionId)) throw new HttpError(400, 'sessionId must be 1-128 letters, digits, dots, dashes or underscores, not starting with a dot.');
  const uiMessages = await userTurn(messages);
  const agent = await sessions.open(sessionId);
  if (agent.isRunning) {
    const pendingApprovals = agent.pendingApprovals;
    const waiting = pendingApprovals.length > 0 ? `answer its pending approvals (${pendingApprovals.join(', ')})` : 'wait for it to end';
    throw new HttpError(409, `Session "${sessionId}" is in the middle of a run: ${waiting}.`, { pendingApprovals });
  }
  const disconnected = new AbortController();
  response.once('close', () => {
    if (!response.writableFinished) disconnected.abort();
  });
  await pipeAgentUIStreamToResponse({
    response,
    agent: toAISDKAgent(agent, { approvals: 'in-stream' }),
    uiMessages,
    abortSignal: disconnected.signal,
    // The AI SDK sends "An error occurred." unless told otherwise; the run's own messages are safe to show here.
    onError: (error) => (error instanceof Error ? error.message : String(error)),
    messageMetadata: ({ part }): RunMetadata | undefined =>
      part.type === 'finish' ? { outcome: (part as { outcome?: string }).outcome ?? '' } : undefined,
  });
}

/** The request's UI messages, checked: the last one is the user's new message, with text. */
export async function userTurn(messages: unknown): Promise<UIMessage[]> {
  const validated = await safeValidateUIMessages({ messages });
  if (!validated.success) throw new HttpError(400, `messages must be a non-empty array of AI SDK UI messages: ${validated.error.message}`);
  const last = validated.data.at(-1);
  const hasText = last?.parts.some((part) => part.type === 'text' && part.text.trim() !== '');
  if (last?.role !== 'user' || !hasText) throw new HttpError(400, 'The last message must be a user message with text.');
  return validated.data;
}
