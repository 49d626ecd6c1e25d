/**
 * The options object of a public function, checked whole: a misspelt or unknown option is
 * refused, not ignored (`bashTool({ timeout: 5000 })` would otherwise run with the default), and a
 * value that does not fit is refused naming its field.
 */
import { z } from 'zod';
import { closestName } from './closest-name.js';

/** What a field's issue says, with the path to it. */
function issueText(issue: z.core.$ZodIssue, known: readonly string[]): string {
  if (issue.code === 'unrecognized_keys') {
    return issue.keys
      .map((key) => {
        const meant = issue.path.length === 0 ? closestName(key, known) : undefined;
        const at = issue.path.length > 0 ? ` in ${issue.path.join('.')}` : '';
        return `unknown option "${key}"${at}${meant !== undefined ? ` (did you mean "${meant}"?)` : ''}`;
      })
      .join('; ');
  }
  return issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message;
}

/**
 * `options` parsed with `schema` (a `z.strictObject`), or a `TypeError` that names `owner` and
 * every problem: an unknown option (with the one meant, when it is close), a value that does not
 * fit, the options themselves not an object.
 *
 * @example
 * parseOptions('grepTool', z.strictObject({ cwd: z.string(), maxMatches: z.number().optional() }), { cwd: '.', maxMatch: 5 });
 * // TypeError: Invalid grepTool options: unknown option "maxMatch" (did you mean "maxMatches"?); it takes cwd, maxMatches
 */
export function parseOptions<T extends z.ZodObject>(owner: string, schema: T, options: unknown): z.output<T> {
  const parsed = schema.safeParse(options);
  if (parsed.success) return parsed.data;
  const known = Object.keys(schema.shape);
  const unknownKey = parsed.error.issues.some((issue) => issue.code === 'unrecognized_keys' && issue.path.length === 0);
  const problems = parsed.error.issues.map((issue) => issueText(issue, known));
  throw new TypeError(`Invalid ${owner} options: ${problems.join('; ')}${unknownKey ? `; it takes ${known.join(', ')}` : ''}`);
}

/**
 * A schema that knows only the names of `keys`: for a function whose every option has a check of
 * its own, where all `parseOptions` has left to refuse is an option it does not know.
 *
 * @example
 * parseOptions('advanceSession', knownKeys(['store', 'sessionId']), { store, sessionID: 's1' });
 * // TypeError: Invalid advanceSession options: unknown option "sessionID" (did you mean "sessionId"?); it takes store, sessionId
 */
export function knownKeys(keys: readonly string[]): z.ZodObject {
  return z.strictObject(Object.fromEntries(keys.map((key) => [key, z.unknown().optional()])));
}
