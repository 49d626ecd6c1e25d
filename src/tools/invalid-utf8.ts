import { isUtf8 } from 'node:buffer';

const REPLACEMENT = '\uFFFD';
const REPLACEMENT_BYTES = Buffer.from(REPLACEMENT, 'utf8');

/**
 * The notice `read` (and an `@path` mention) adds after text that is not
 * valid UTF-8: its invalid bytes are shown as U+FFFD, which the text would
 * carry into the file if written back.
 */
export const INVALID_UTF8_NOTICE =
  '[not valid UTF-8: the bytes that are not are shown as \uFFFD; writing this text back would replace them, and edit refuses this file]';

export interface InvalidUtf8 {
  /** Offset of the first byte that is not part of valid UTF-8. */
  byteOffset: number;
  /** That byte's value. */
  byte: number;
  /** 1-based line it is on. */
  line: number;
}

/**
 * Where `bytes` first stop being valid UTF-8, or undefined when they are valid
 * throughout. Decoding such bytes and encoding them again would replace that
 * byte, and every later invalid one, by U+FFFD. Pure.
 *
 * @example
 * firstInvalidUtf8(Buffer.from('ok\ncaf\xe9', 'latin1')) // { byteOffset: 6, byte: 0xe9, line: 2 }
 * firstInvalidUtf8(Buffer.from('café'))                  // undefined
 */
export function firstInvalidUtf8(bytes: Uint8Array): InvalidUtf8 | undefined {
  if (isUtf8(bytes)) return undefined;
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  // Up to the first invalid byte the text decodes exactly, so its encoded length is that byte's offset;
  // a U+FFFD that was in the file as such (EF BF BD) is passed over.
  let byteOffset = 0;
  let line = 1;
  let scanned = 0;
  for (let index = text.indexOf(REPLACEMENT); index !== -1; index = text.indexOf(REPLACEMENT, scanned)) {
    const before = text.slice(scanned, index);
    byteOffset += Buffer.byteLength(before, 'utf8');
    line += before.split('\n').length - 1;
    if (!REPLACEMENT_BYTES.equals(bytes.subarray(byteOffset, byteOffset + REPLACEMENT_BYTES.length))) {
      return { byteOffset, byte: bytes[byteOffset]!, line };
    }
    byteOffset += REPLACEMENT_BYTES.length;
    scanned = index + 1;
  }
  return undefined;
}

/**
 * Refuses text with a lone UTF-16 surrogate (half of a character, as a
 * `\ud83d` escape in a tool call's JSON can give): UTF-8 cannot encode it,
 * and writing the text would put U+FFFD in its place without a word.
 * `field` names the input in the error. Pure.
 *
 * @example
 * assertEncodableAsUtf8('caf\u00e9', 'content')  // ok
 * assertEncodableAsUtf8('smile \ud83d', 'content') // throws "content has half of a character (a lone UTF-16 surrogate, \ud83d) at index 6, …"
 */
export function assertEncodableAsUtf8(text: string, field: string): void {
  // Without the u flag the pattern sees UTF-16 code units: a high surrogate with no low one after it, or a low one with no high one before it.
  const lone = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.exec(text);
  if (!lone) return;
  const unit = `\\u${lone[0].charCodeAt(0).toString(16)}`;
  throw new Error(
    `${field} has half of a character (a lone UTF-16 surrogate, ${unit}) at index ${lone.index}, which UTF-8 cannot encode: it would be written as U+FFFD. ` +
      'Send the whole character (both halves of its surrogate pair, or the character itself)',
  );
}
