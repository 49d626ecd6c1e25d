/** How many leading bytes are inspected to decide whether content is binary. */
export const BINARY_SNIFF_BYTES = 8192;

/**
 * Treats content as binary when a NUL byte occurs in its first 8 KB, the same
 * heuristic git and grep use.
 *
 * @example
 * looksBinary(Buffer.from('hello')) // false
 */
export function looksBinary(content: Uint8Array): boolean {
  const end = Math.min(content.length, BINARY_SNIFF_BYTES);
  for (let i = 0; i < end; i++) {
    if (content[i] === 0) return true;
  }
  return false;
}
