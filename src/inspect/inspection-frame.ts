/**
 * The relay's batch frame: many inspection events in one WebSocket frame, so a
 * tool loop's hundreds of events cost a few frames per step instead of one
 * each. A batch frame is a header line, then one event's JSON text per line
 * (JSON text never holds a raw newline). Any other frame is one event, as
 * `@statelyai/inspect` sends it; the relay passes those on untouched.
 */

import { resolveBackReferences } from './back-references.js';
import { safeJson } from './sanitize.js';

/** The first line of a batch frame. */
export const BATCH_HEADER = '{"type":"@loopchart.batch"}';

/** One frame holding every event text, in order. */
export function batchFrame(eventTexts: readonly string[]): string {
  return `${BATCH_HEADER}\n${eventTexts.join('\n')}`;
}

/** The event texts in a frame: each line of a batch frame, or the frame itself. */
export function frameEventTexts(frame: string): string[] {
  if (!frame.startsWith(`${BATCH_HEADER}\n`)) return [frame];
  return frame.slice(BATCH_HEADER.length + 1).split('\n');
}

/** True when some event of the frame may refer back (`back-references.ts`): the keys that mark them appear in it. */
function mayReferBack(frame: string): boolean {
  return frame.includes('"@loopchart.patch":') || frame.includes('"@loopchart.same":');
}

/** The events of a frame as data, back-references resolved. */
export function frameEvents(frame: string): unknown[] {
  const events = frameEventTexts(frame).map((text) => JSON.parse(text) as unknown);
  return mayReferBack(frame) ? resolveBackReferences(events) : events;
}

/**
 * The events of a frame as texts, one per event, as a client that reads one
 * event per frame takes them: the frame's own texts when nothing in it refers
 * back.
 */
export function standaloneEventTexts(frame: string): string[] {
  if (!mayReferBack(frame)) return frameEventTexts(frame);
  return frameEvents(frame).map((event) => JSON.stringify(event));
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

const BATCH_PREFIX = Buffer.from(`${BATCH_HEADER}\n`);
const NEWLINE = 0x0a;

/** How many events a frame, as received, holds: without decoding it (a newline byte is never part of a UTF-8 sequence). */
export function frameEventCount(frame: Buffer): number {
  if (!frame.subarray(0, BATCH_PREFIX.length).equals(BATCH_PREFIX)) return 1;
  let events = 1;
  for (let at = frame.indexOf(NEWLINE, BATCH_PREFIX.length); at !== -1; at = frame.indexOf(NEWLINE, at + 1)) events++;
  return events;
}
