export const REDACTED = '[redacted]';

/**
 * Secrets shorter than this are not redacted: a placeholder key such as `x` or
 * `1` (common for local servers) is no secret, and replacing every `1` would
 * corrupt the output (`"inputTokens":[redacted]0`).
 */
export const MIN_SECRET_LENGTH = 8;

/** The mark that previews and cuts put where they cut text short. */
const CUT = '…';
/**
 * What follows a piece of a secret's beginning where text was cut: a preview's
 * `…`, or the line break before the middle cut's `[… N lines cut here …]`.
 */
const AFTER_A_HEAD = [CUT, `\n[${CUT}`];
/** What comes before a piece of a secret's end where text was cut: `…`, or the middle cut's marker's end and its line break. */
const BEFORE_A_TAIL = [CUT, `${CUT}]\n`];
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
 * secret (four characters or more) that a cut left next to its mark: a
 * preview's `…` (`sk-test-SECR…`), or the model-facing middle cut's
 * `\n[… N lines cut here …]\n`. So redacting after cutting leaves at most
 * three characters of a secret. Secrets shorter than
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
        for (const mark of AFTER_A_HEAD) {
          const head = `${form.slice(0, length)}${mark}`;
          if (result.includes(head)) result = result.split(head).join(`${REDACTED}${mark}`);
        }
        for (const mark of BEFORE_A_TAIL) {
          const tail = `${mark}${form.slice(form.length - length)}`;
          if (result.includes(tail)) result = result.split(tail).join(`${mark}${REDACTED}`);
        }
      }
    }
  }
  return result;
}

/**
 * {@link redact} applied to every string in a JSON-like value (object keys
 * too), for values that are not text yet: a tool's output or input. Returns
 * `value` itself when nothing changed. Pure.
 *
 * @example
 * redactValue({ stdout: 'token sk-test-SECRET123' }, ['sk-test-SECRET123']) // { stdout: 'token [redacted]' }
 */
export function redactValue<T>(value: T, secrets: readonly string[]): T {
  if (secrets.length === 0) return value;
  return redactAny(value, secrets) as T;
}

function redactAny(value: unknown, secrets: readonly string[]): unknown {
  if (typeof value === 'string') return redact(value, secrets);
  if (Array.isArray(value)) {
    const items = value.map((item) => redactAny(item, secrets));
    return items.some((item, index) => item !== value[index]) ? items : value;
  }
  if (!isPlainObject(value)) return value;
  let changed = false;
  const entries = Object.entries(value).map(([key, item]) => {
    const redacted = [redact(key, secrets), redactAny(item, secrets)] as const;
    if (redacted[0] !== key || redacted[1] !== item) changed = true;
    return redacted;
  });
  return changed ? Object.fromEntries(entries) : value;
}

/** An object literal or JSON object; class instances (a Buffer, a Date) are left as they are. */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
