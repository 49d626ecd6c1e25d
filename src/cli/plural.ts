/**
 * `count` and the noun, in the plural unless the count is one. Pure.
 *
 * @example
 * plural(1, 'step')             // '1 step'
 * plural(3, 'tool call')        // '3 tool calls'
 * plural(1234, 'token')         // '1234 tokens'
 */
export function plural(count: number, noun: string): string {
  return `${count} ${count === 1 ? noun : `${noun}s`}`;
}
