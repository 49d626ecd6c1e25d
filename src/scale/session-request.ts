import type { ModelMessage } from 'ai';
import { z } from 'zod';
import type { Prompt } from '../agent.js';
import { sessionIdSchema } from '../persistence/session-id.js';
import { closestName } from '../core/closest-name.js';

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

/** The input schema with each input's fields as `object` takes them: `z.object` drops unknown ones, `z.strictObject` refuses them. */
function inputSchemaOf(object: typeof z.object | typeof z.strictObject) {
  return z.discriminatedUnion('type', [
    object({ type: z.literal('prompt'), prompt: z.union([messageSchema, z.array(z.looseObject({ role: z.string() })).min(1)]) }),
    object({ type: z.literal('approve'), toolCallId: z.string().min(1) }),
    object({ type: z.literal('deny'), toolCallId: z.string().min(1), reason: z.string().optional() }),
    object({ type: z.literal('steer'), message: messageSchema }),
    object({ type: z.literal('follow-up'), message: messageSchema }),
    object({ type: z.literal('abort'), reason: z.string().optional() }),
    object({ type: z.literal('resume') }),
  ]);
}

const requestSchemaOf = (input: ReturnType<typeof inputSchemaOf>) =>
  z.object({
    sessionId: sessionIdSchema,
    requestId: z.string().min(1).max(200),
    input,
  });
/** What a worker takes: an input field it does not know is left out, so that a newer sender's input still moves an older worker's session. */
const requestSchema = requestSchemaOf(inputSchemaOf(z.object));
const sentInputSchema = inputSchemaOf(z.strictObject);
/** What a sender sends: an input field no worker knows is refused where it is written (`deny` with `reasn` would lose its reason). */
const sentRequestSchema = requestSchemaOf(sentInputSchema);

/** The fields each input type takes, for naming the one meant. */
const inputFields = new Map<string, string[]>(sentInputSchema.options.map((input) => [input.shape.type.value, Object.keys(input.shape)]));

function issueMessage(issue: z.core.$ZodIssue, request: SessionRequest): string {
  if (issue.code !== 'unrecognized_keys') return issue.message;
  const fields = inputFields.get(request.input.type) ?? [];
  return issue.keys
    .map((key) => {
      const meant = closestName(key, fields);
      return `unknown field "${key}" of ${/^[aeiou]/.test(request.input.type) ? 'an' : 'a'} ${request.input.type} input${meant !== undefined ? ` (did you mean "${meant}"?)` : ''}: no worker reads it; it takes ${fields.join(', ')}`;
    })
    .join('; ');
}

/**
 * Checks a session request the same way wherever it enters: the session id by the stores' rule,
 * the request id (1-200 characters), and the input's shape. `sending`: the request is being sent
 * (`sessionClient.send`), so an input field no worker knows is refused too; a worker leaves such a
 * field out, so that a newer sender's input still moves an older worker's session.
 *
 * @example
 * ```ts
 * assertSessionRequest({ sessionId: 'chat-42', requestId: 'msg-7', input: { type: 'abort' } });
 * ```
 * @throws SessionRequestError naming each bad field.
 */
export function assertSessionRequest(request: SessionRequest, { sending = false }: { sending?: boolean } = {}): void {
  const parsed = (sending ? sentRequestSchema : requestSchema).safeParse(request);
  if (parsed.success) return;
  throw new SessionRequestError(parsed.error.issues.map((issue) => ({ path: issue.path.join('.') || '(request)', message: issueMessage(issue, request) })));
}
