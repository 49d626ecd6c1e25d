import { z } from 'zod';

/** What a session id may be, in words: the same rule for every store, `createAgent`, `advanceSession`, the DBOS client and the CLI. */
export const SESSION_ID_RULE = '1-128 letters, digits, dots, dashes or underscores, not starting with a dot';

const SESSION_ID = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/;

/**
 * Why `value` is not a session id, or undefined when it is one. A session id names a file
 * (`fileStore`), a row (`pgStore`) and a DBOS workflow id prefix, so it holds no path separator,
 * no `:` and no SQL `LIKE` wildcard other than `_` (which the DBOS client escapes).
 *
 * @example
 * ```ts
 * sessionIdProblem('chat-42');  // undefined
 * sessionIdProblem('../etc');   // 'expected 1-128 letters, digits, …'
 * ```
 */
export function sessionIdProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return `expected a string (${SESSION_ID_RULE})`;
  return SESSION_ID.test(value) ? undefined : `expected ${SESSION_ID_RULE}`;
}

/**
 * Throws a `TypeError` naming the id when it is not a valid session id.
 *
 * @example
 * ```ts
 * assertSessionId('chat_7'); // fine
 * assertSessionId('a/b');    // TypeError: Invalid session id "a/b": expected 1-128 letters, …
 * ```
 */
export function assertSessionId(value: unknown): asserts value is string {
  const problem = sessionIdProblem(value);
  if (problem !== undefined) throw new TypeError(`Invalid session id ${JSON.stringify(value)?.slice(0, 200)}: ${problem}.`);
}

/** The rule as a zod schema, for option schemas (`createAgent`'s `sessionId`, `advanceSession`'s). */
export const sessionIdSchema = z.string().superRefine((value, context) => {
  const problem = sessionIdProblem(value);
  if (problem !== undefined) context.addIssue({ code: 'custom', message: problem });
});
