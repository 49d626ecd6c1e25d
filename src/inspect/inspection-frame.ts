/**
 * The relay's batch frame: many inspection events in one WebSocket frame, so a
 * tool loop's hundreds of events cost a few frames per step instead of one
 * each. A batch frame is a header line, then one event's JSON text per line
 * (JSON text never holds a raw newline). Its header says whether its events
 * may refer back to earlier ones of the frame (`back-references.ts`): only
 * then are references resolved, so no event of any other frame is read as
 * one. Any other frame is one event, as `@statelyai/inspect` sends it; the
 * relay passes those on untouched.
 */

import { resolveBackReferences } from './back-references.js';
import { safeJson } from './sanitize.js';

/** The first line of a batch frame whose events are whole. */
export const BATCH_HEADER = '{"type":"@loopchart.batch"}';

/** The first line of a batch frame whose events may refer back to earlier ones of the frame. */
export const REFERRING_BATCH_HEADER = '{"type":"@loopchart.batch","references":true}';

/** One frame holding every event text, in order; `referring` when the texts may hold back-references. */
export function batchFrame(eventTexts: readonly string[], referring = false): string {
  return `${referring ? REFERRING_BATCH_HEADER : BATCH_HEADER}\n${eventTexts.join('\n')}`;
}

const NEWLINE = 0x0a;

/**
 * {@link batchFrame} as the UTF-8 bytes a socket sends: the texts written
 * straight into one buffer, without the joined string (a frame is hundreds of
 * KB) or a second pass to encode it. The buffer is sized for one byte a
 * character and grows (doubling) only for a text that holds wider ones.
 */
export function batchFrameBytes(eventTexts: readonly string[], referring = false): Buffer {
  const header = referring ? REFERRING_BATCH_HEADER : BATCH_HEADER;
  // What is still to be written, at a byte a character: the header's newline, then each text, newlines between them.
  let left = 0;
  for (const text of eventTexts) left += 1 + text.length;
  let frame: Buffer = Buffer.allocUnsafe(header.length + Math.max(1, left));
  let at = frame.write(header, 0, 'latin1');
  frame[at++] = NEWLINE;
  eventTexts.forEach((text, index) => {
    left -= 1 + text.length;
    if (index > 0) {
      if (at === frame.length) frame = grown(frame, at, 1 + text.length + left);
      frame[at++] = NEWLINE;
    }
    let written = frame.write(text, at);
    // `write` stops before a character it has no room for: with 4 bytes (the widest) to spare, none was left out.
    if (frame.length - at - written < 4) {
      const bytes = Buffer.byteLength(text);
      if (written < bytes) {
        frame = grown(frame, at, bytes + left);
        written = frame.write(text, at);
      }
    }
    at += written;
  });
  return frame.subarray(0, at);
}

/** A buffer with the first `used` bytes of `frame` and room for `more` after them, at least twice as large. */
function grown(frame: Buffer, used: number, more: number): Buffer {
  const larger = Buffer.allocUnsafe(Math.max(2 * frame.length, used + more));
  frame.copy(larger, 0, 0, used);
  return larger;
}

/** The header a frame begins with, if it is a batch frame. */
function headerOf(frame: string): string | undefined {
  if (frame.startsWith(`${BATCH_HEADER}\n`)) return BATCH_HEADER;
  if (frame.startsWith(`${REFERRING_BATCH_HEADER}\n`)) return REFERRING_BATCH_HEADER;
  return undefined;
}

/** The event texts in a frame: each line of a batch frame, or the frame itself. */
export function frameEventTexts(frame: string): string[] {
  const header = headerOf(frame);
  return header === undefined ? [frame] : frame.slice(header.length + 1).split('\n');
}

/**
 * The events of a frame as data, back-references resolved; `onResolved` as
 * {@link resolveBackReferences} takes it, for a referring frame.
 *
 * @throws a `SyntaxError` when a line is not JSON.
 */
export function frameEvents(frame: string, onResolved?: (event: unknown, line: number) => void): unknown[] {
  const events = frameEventTexts(frame).map((text) => JSON.parse(text) as unknown);
  return headerOf(frame) === REFERRING_BATCH_HEADER ? resolveBackReferences(events, onResolved) : events;
}

/**
 * How far a referring frame may expand when its events are written whole: 16
 * times its own length, at least 1 MiB and at most 64 MiB. A run's frame
 * expands a few times (more with a long system prompt, which every whole
 * snapshot repeats); the ceiling bounds the memory one frame can take, since
 * the texts are held until they are sent.
 */
export function standaloneTextLimit(frameLength: number): number {
  return Math.min(64 * 2 ** 20, Math.max(2 ** 20, 16 * frameLength));
}

/** A referring frame whose whole events would be larger than {@link standaloneTextLimit}. */
class FrameExpandsTooFar extends Error {}

/**
 * The events of a frame as texts, one per event, as a client that reads one
 * event per frame takes them: the frame's own texts when nothing in it refers
 * back, the resolved events otherwise. A referring frame that does not parse,
 * or whose events written whole would exceed `limit` characters (it came from
 * a broken or hostile client), gives none, and the relay goes on; since each
 * event is written as soon as it is resolved, resolving stops at the limit.
 */
export function standaloneEventTexts(frame: string, limit = standaloneTextLimit(frame.length)): string[] {
  if (headerOf(frame) !== REFERRING_BATCH_HEADER) return frameEventTexts(frame);
  try {
    const texts: string[] = [];
    let written = 0;
    frameEvents(frame, (event) => {
      const text = JSON.stringify(event);
      written += text.length;
      if (written > limit) throw new FrameExpandsTooFar();
      texts.push(text);
    });
    return texts;
  } catch {
    return [];
  }
}

/**
 * JSON text of an inspection event: `JSON.stringify`, or for the rare event it
 * cannot serialise (a cycle, a BigInt) the same with cycles cut and BigInts as
 * strings.
 */
export function eventText(event: object): string {
  try {
    return JSON.stringify(event);
  } catch {
    return safeJson(event);
  }
}

/**
 * The query parameter by which a relay's URL says what frames it reads: `batch`
 * (batch frames), or `references` (batch frames whose events may refer back to
 * earlier ones, `back-references.ts`), as `startInspectorRelay` gives.
 */
export const BATCH_FRAMES_PARAMETER = 'frames';

/** What the server at the URL reads: one event per frame (any server but loopchart's relay), batch frames, or batch frames with back-references. */
export function framesReadAt(url: string): 'single' | 'batch' | 'references' {
  try {
    const frames = new URL(url).searchParams.get(BATCH_FRAMES_PARAMETER);
    return frames === 'batch' || frames === 'references' ? frames : 'single';
  } catch {
    return 'single';
  }
}

const BATCH_PREFIXES = [BATCH_HEADER, REFERRING_BATCH_HEADER].map((header) => Buffer.from(`${header}\n`));

/** How many events a frame, as received, holds: without decoding it (a newline byte is never part of a UTF-8 sequence). */
export function frameEventCount(frame: Buffer): number {
  const prefix = BATCH_PREFIXES.find((candidate) => frame.subarray(0, candidate.length).equals(candidate));
  if (prefix === undefined) return 1;
  let events = 1;
  for (let at = frame.indexOf(NEWLINE, prefix.length); at !== -1; at = frame.indexOf(NEWLINE, at + 1)) events++;
  return events;
}
