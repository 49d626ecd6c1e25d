/** Something text can be written to: a stream, or a wrapper around one. */
export interface TextSink {
  write(text: string): unknown;
}

import { redact } from '../secrets/redact.js';

export { redact, redactValue, REDACTED } from '../secrets/redact.js';

/**
 * A sink that redacts `secrets` from every write before passing it on.
 * `secrets` is read at each write, so a secret added later (once the API key
 * has been read) is redacted from then on. Each write is redacted on its own:
 * the CLI writes whole lines, JSON documents and model text deltas, so a
 * secret is caught unless a model streams it split across two deltas.
 */
export function redactingSink(target: TextSink, secrets: readonly string[]): TextSink {
  return { write: (text: string) => target.write(secrets.length > 0 ? redact(text, secrets) : text) };
}
