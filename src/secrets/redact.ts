export const REDACTED = '[redacted]';

/**
 * Secrets shorter than this are not redacted: a placeholder key such as `x` or
 * `1` (common for local servers) is no secret, and replacing every `1` would
 * corrupt the output (`"inputTokens":[redacted]0`).
 */
export const MIN_SECRET_LENGTH = 8;

/** The mark that previews put where they cut text short. */
const CUT = '…';
/** The shortest piece of a secret, next to a cut mark, that is redacted as a piece of it. */
const MIN_FRAGMENT = 4;

/** The forms a secret takes in text: as written, and inside a JSON string. */
function formsOf(secret: string): string[] {
  const escaped = JSON.stringify(secret).slice(1, -1);
  return escaped === secret ? [secret] : [secret, escaped];
}

/**
 * Replaces every occurrence of each secret in `text` (as written, and as it
 * appears inside a JSON string) by `[redacted]`, and so does a piece of a
 * secret that a preview cut short next to its `…` (`sk-test-SECR…`), so that
 * redacting after cutting leaks nothing either. Secrets shorter than
 * {@link MIN_SECRET_LENGTH} are left alone. Pure.
 *
 * @example
 * redact('key=sk-test-SECRET123 and sk-test-SEC…', ['sk-test-SECRET123']) // 'key=[redacted] and [redacted]…'
 */
export function redact(text: string, secrets: readonly string[]): string {
  let result = text;
  for (const secret of secrets) {
    if (secret.length < MIN_SECRET_LENGTH) continue;
    for (const form of formsOf(secret)) {
      if (result.includes(form)) result = result.split(form).join(REDACTED);
      if (!result.includes(CUT)) continue;
      for (let length = form.length - 1; length >= MIN_FRAGMENT; length--) {
        const head = `${form.slice(0, length)}${CUT}`;
        if (result.includes(head)) result = result.split(head).join(`${REDACTED}${CUT}`);
        const tail = `${CUT}${form.slice(form.length - length)}`;
        if (result.includes(tail)) result = result.split(tail).join(`${CUT}${REDACTED}`);
      }
    }
  }
  return result;
}
