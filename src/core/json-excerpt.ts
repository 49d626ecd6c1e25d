/**
 * The start of `value`'s JSON (its `String` where JSON has none: `undefined`, a function), for an
 * error that shows what it was given without quoting all of it.
 *
 * @example
 * jsonExcerpt({ run: 42 }); // '{"run":42}'
 * jsonExcerpt('x'.repeat(500), 10); // '"xxxxxxxxx'
 */
export function jsonExcerpt(value: unknown, maxChars = 80): string {
  return (JSON.stringify(value) ?? String(value)).slice(0, maxChars);
}
