import { redact } from '../secrets/redact.js';
import type { OutputTailSnapshot } from './output-tail.js';
import { truncateTail } from './truncate.js';

export const BASH_MAX_OUTPUT_LINES = 2000;
export const BASH_MAX_OUTPUT_BYTES = 50 * 1024;

/**
 * What `bash` shows of a command's combined output: `secrets` redacted first,
 * then the last {@link BASH_MAX_OUTPUT_LINES} lines / {@link BASH_MAX_OUTPUT_BYTES}
 * bytes, after a line that says how much was cut. Redacting before the cut is
 * what keeps a secret whole enough to be found: cut first, the piece of it
 * left at the cut would pass. Pure.
 *
 * @example
 * bashOutputText({ text: 'token sk-test-SECRET123\n', droppedBytes: 0, droppedLines: 0, startsMidLine: false, notUtf8: false }, ['sk-test-SECRET123'])
 * // 'token [redacted]'
 */
export function bashOutputText(output: OutputTailSnapshot, secrets: readonly string[] = []): string {
  const whole = output.text.endsWith('\n') ? output.text.slice(0, -1) : output.text;
  const text = secrets.length > 0 ? redactedOutput(whole, output.startsMidLine, secrets) : whole;
  return withNotUtf8Notice(cutOutput(output, text), output.notUtf8);
}

/** The notice after output that was not valid UTF-8: a model that wrote it back to a file would write U+FFFD for those bytes. */
export const BASH_NOT_UTF8_NOTICE =
  '[the output is not valid UTF-8: the bytes that are not are shown as \uFFFD; writing this text to a file would replace them]';

function withNotUtf8Notice(text: string, notUtf8: boolean): string {
  return notUtf8 ? `${text}\n\n${BASH_NOT_UTF8_NOTICE}` : text;
}

/**
 * `whole` redacted; when the output buffer kept it from the middle of a line, its start is a cut
 * like a preview's `…`, so that the piece of a secret there (its end) is redacted too.
 */
function redactedOutput(whole: string, startsMidLine: boolean, secrets: readonly string[]): string {
  return startsMidLine ? redact(`…${whole}`, secrets).slice(1) : redact(whole, secrets);
}

/** The last lines / bytes of `text`, after a line that says how much was cut (of what the buffer dropped too). */
function cutOutput(output: OutputTailSnapshot, text: string): string {
  const tail = truncateTail(text, { maxLines: BASH_MAX_OUTPUT_LINES, maxBytes: BASH_MAX_OUTPUT_BYTES });
  if (output.droppedBytes === 0 && !tail.truncated) return text === '' ? '(no output)' : text;
  const omittedLines = output.droppedLines + tail.totalLines - tail.shownLines;
  const omittedBytes = output.droppedBytes + tail.totalBytes - tail.shownBytes;
  const firstShownIsPartial = tail.partialLine || (output.startsMidLine && tail.firstShownLine === 1);
  const shown = `the last ${countOf(tail.shownLines, 'line')}${firstShownIsPartial ? ', the first only in part' : ''}`;
  const marker = `[output truncated: ${countOf(omittedLines, 'line')} (${omittedBytes} bytes) omitted before; showing ${shown}]`;
  return `${marker}\n${tail.text}`;
}

function countOf(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
