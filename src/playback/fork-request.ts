import { z } from 'zod';

/**
 * What "run on from here" asks for: the checkpoint to fork from and what to change. Every field
 * but `checkpoint` is optional; an empty string counts as not given.
 */
export interface ForkRequest {
  /** The checkpoint of the original session the fork starts from. */
  checkpoint: number;
  /** A message to run on with: a new prompt at a run's end, or a steer message in the middle of one. */
  prompt?: string;
  /** The system prompt of the fork's run, instead of the one `loopchart open` was given. */
  instructions?: string;
  /** Another model, as `provider:model-id`. */
  model?: string;
  /** One message of the history at the checkpoint, its text replaced. */
  edit?: { index: number; text: string };
  /** The page's id for this request: a request sent again (a browser retries a POST on a dropped connection) forks once. */
  requestId?: string;
}

const optionalText = z
  .string()
  .max(1_000_000)
  .optional()
  .transform((text) => (text === undefined || text.trim() === '' ? undefined : text));

const forkRequestSchema = z.strictObject({
  checkpoint: z.number().int().positive(),
  prompt: optionalText,
  instructions: optionalText,
  model: optionalText,
  edit: z.strictObject({ index: z.number().int().nonnegative(), text: z.string().max(1_000_000) }).optional(),
  requestId: z.string().min(1).max(100).optional(),
});

/** A request the page sent that is not a fork request: the message says which field is wrong and why. */
export class ForkRequestError extends Error {
  override readonly name = 'ForkRequestError';
}

/**
 * Checks a fork request as the page sends it (JSON).
 *
 * @example
 * parseForkRequest({ checkpoint: 2, prompt: 'Use the other file' }) // { checkpoint: 2, prompt: 'Use the other file' }
 * parseForkRequest({ checkpoint: 0 })                              // throws ForkRequestError: checkpoint: …
 * @throws ForkRequestError naming the field.
 */
export function parseForkRequest(body: unknown): ForkRequest {
  const parsed = forkRequestSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ForkRequestError(`${issue.path.join('.') || 'the request'}: ${issue.message}`);
  }
  const { checkpoint, prompt, instructions, model, edit, requestId } = parsed.data;
  return {
    checkpoint,
    ...(prompt !== undefined ? { prompt } : {}),
    ...(instructions !== undefined ? { instructions } : {}),
    ...(model !== undefined ? { model } : {}),
    ...(edit !== undefined ? { edit } : {}),
    ...(requestId !== undefined ? { requestId } : {}),
  };
}
