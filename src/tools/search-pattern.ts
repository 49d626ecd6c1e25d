/** Compilation of the grep tool's search pattern into a RegExp. */

export interface SearchPatternOptions {
  /** Match regardless of letter case. */
  ignoreCase?: boolean;
  /** Treat the pattern as plain text rather than a regular expression. */
  literal?: boolean;
}

/**
 * Escapes every character that has a meaning in a regular expression.
 *
 * @example
 * escapeRegExp('a.b*') // "a\\.b\\*"
 */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

/**
 * The body and flags of a pattern written as a JavaScript regex literal,
 * `/source/flags`, or undefined. `///` is only slashes, not a literal, and so
 * is a path such as `/usr/local/bin/`: a literal's body holds no unescaped `/`
 * outside a character class. String operations, not a regular expression:
 * linear in the pattern's length.
 */
function asRegexLiteral(pattern: string): { body: string; flags: string } | undefined {
  const closing = pattern.lastIndexOf('/');
  if (!pattern.startsWith('/') || closing < 1) return undefined;
  const body = pattern.slice(1, closing);
  const flags = pattern.slice(closing + 1);
  return /^[dgimsuyv]*$/.test(flags) && /[^/]/.test(body) && !hasBareSlash(body) ? { body, flags } : undefined;
}

/** Whether `body` holds a `/` that is neither escaped nor in a character class: where a regex literal would end. */
function hasBareSlash(body: string): boolean {
  let inClass = false;
  for (let index = 0; index < body.length; index++) {
    const char = body[index];
    if (char === '\\') index++;
    else if (char === '[') inClass = true;
    else if (char === ']') inClass = false;
    else if (char === '/' && !inClass) return true;
  }
  return false;
}

/**
 * Builds the RegExp grep tests each line with, or throws an `Error` that
 * quotes the pattern when it is not a valid JavaScript regular expression,
 * or when it is written as a regex literal (`/TODO/i`), whose slashes would
 * be searched for and match nothing.
 *
 * @example
 * compileSearchPattern('TODO|FIXME', { ignoreCase: true }).test('todo: x') // true
 * compileSearchPattern('(', {}) // throws "Invalid regular expression '(': …"
 * compileSearchPattern('/TODO/i', {}) // throws "Pattern '/TODO/i' is written as a JavaScript regex literal, …"
 * compileSearchPattern('/api/', { literal: true }).test("get('/api/')") // true
 */
export function compileSearchPattern(pattern: string, options: SearchPatternOptions = {}): RegExp {
  const regexLiteral = options.literal ? undefined : asRegexLiteral(pattern);
  if (regexLiteral) {
    const { body, flags } = regexLiteral;
    throw new Error(
      `Pattern '${pattern}' is written as a JavaScript regex literal, but grep takes the regular expression alone: ` +
        `give pattern '${body}'${flags.includes('i') ? ' with ignoreCase: true' : ''}. ` +
        'To search for the slashes themselves, set literal to true or escape them (\\/)',
    );
  }
  const source = options.literal ? escapeRegExp(pattern) : pattern;
  try {
    return new RegExp(source, options.ignoreCase ? 'i' : '');
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`Invalid regular expression '${pattern}': ${reason}. Set literal to true to search for plain text`, {
      cause: error,
    });
  }
}
