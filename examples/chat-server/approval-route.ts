import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApprovalError } from 'loopchart';
import type { ChatSessions } from './chat-sessions.js';
import { HttpError, readJsonObject, sendJson } from './http-json.js';

export type ApprovalDecision = 'approve' | 'deny';

/**
 * `POST /api/sessions/:id/approve` and `/deny` with `{ toolCallId, reason? }`:
 * answers a tool call that waits for approval in a run this server streams.
 */
export async function handleApproval(
  decision: ApprovalDecision,
  sessionId: string,
  request: IncomingMessage,
  response: ServerResponse,
  sessions: ChatSessions,
): Promise<void> {
  const { toolCallId, reason } = await readJsonObject(request);
  if (typeof toolCallId !== 'string' || toolCallId === '') throw new HttpError(400, 'toolCallId (a non-empty string) is required.');
  if (reason !== undefined && typeof reason !== 'string') throw new HttpError(400, 'reason must be a string when given.');
  const agent = await sessions.find(sessionId);
  if (!agent) throw new HttpError(404, `Unknown session "${sessionId}": no chat on this server has used it.`);
  try {
    if (decision === 'approve') agent.approve(toolCallId);
    else agent.deny(toolCallId, reason);
  } catch (error) {
    if (error instanceof ApprovalError) throw new HttpError(404, error.message, { pendingApprovals: agent.pendingApprovals });
    throw error;
  }
  sendJson(response, 200, { sessionId, toolCallId, answer: decision === 'approve' ? 'approved' : 'denied', pendingApprovals: agent.pendingApprovals });
}
