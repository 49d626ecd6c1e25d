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
 * Builds the RegExp grep tests each line with, or throws an `Error` that
 * quotes the pattern when it is not a valid JavaScript regular expression.
 *
 * @example
 * compileSearchPattern('TODO|FIXME', { ignoreCase: true }).test('todo: x') // true
 * compileSearchPattern('(', {}) // throws "Invalid regular expression '(': …"
 */
export function compileSearchPattern(pattern: string, options: SearchPatternOptions = {}): RegExp {
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
