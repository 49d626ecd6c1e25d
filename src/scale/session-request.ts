import type { ModelMessage } from 'ai';
import { z } from 'zod';
import type { Prompt } from '../agent.js';
import { sessionIdSchema } from '../persistence/session-id.js';

/** One thing that moves a session on: what a person or the app sends. */
export type SessionInput =
  | { type: 'prompt'; prompt: Prompt }
  | { type: 'approve'; toolCallId: string }
  | { type: 'deny'; toolCallId: string; reason?: string }
  | { type: 'steer'; message: string | ModelMessage }
  | { type: 'follow-up'; message: string | ModelMessage }
  | { type: 'abort'; reason?: string }
  /** Nothing new: continue a run the session was in the middle of (after a worker died), if any. */
  | { type: 'resume' };

/** An input for a session, with the id that keeps it from being applied twice. */
export interface SessionRequest {
  sessionId: string;
  input: SessionInput;
  requestId: string;
}

/**
 * A session id, request id or input that no worker could ever apply: refused where it enters
 * (`sessionClient.send`, `advanceSession`), never retried. The message names each bad field.
 */
export class SessionRequestError extends Error {
  override readonly name = 'SessionRequestError';
  constructor(readonly issues: ReadonlyArray<{ path: string; message: string }>) {
    super(`Invalid session request:\n${issues.map((issue) => `  - ${issue.path}: ${issue.message}`).join('\n')}`);
  }
}

const messageSchema = z.union([z.string().min(1), z.looseObject({ role: z.string() })]);
const inputSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('prompt'), prompt: z.union([messageSchema, z.array(z.looseObject({ role: z.string() })).min(1)]) }),
  z.object({ type: z.literal('approve'), toolCallId: z.string().min(1) }),
  z.object({ type: z.literal('deny'), toolCallId: z.string().min(1), reason: z.string().optional() }),
  z.object({ type: z.literal('steer'), message: messageSchema }),
  z.object({ type: z.literal('follow-up'), message: messageSchema }),
  z.object({ type: z.literal('abort'), reason: z.string().optional() }),
  z.object({ type: z.literal('resume') }),
]);
const requestSchema = z.object({
  sessionId: sessionIdSchema,
  requestId: z.string().min(1).max(200),
  input: inputSchema,
});

/**
 * Checks a session request the same way wherever it enters: the session id by the stores' rule,
 * the request id (1-200 characters), and the input's shape.
 *
 * @example
 * ```ts
 * assertSessionRequest({ sessionId: 'chat-42', requestId: 'msg-7', input: { type: 'abort' } });
 * ```
 * @throws SessionRequestError naming each bad field.
 */
export function assertSessionRequest(request: SessionRequest): void {
  const parsed = requestSchema.safeParse(request);
  if (parsed.success) return;
  throw new SessionRequestError(parsed.error.issues.map((issue) => ({ path: issue.path.join('.') || '(request)', message: issue.message })));
}
