/**
 * The relay's batch frame: many inspection events in one WebSocket frame, so a
 * tool loop's hundreds of events cost a few frames per step instead of one
 * each. A batch frame is a header line, then one event's JSON text per line
 * (JSON text never holds a raw newline). Any other frame is one event, as
 * `@statelyai/inspect` sends it; the relay passes those on untouched.
 */

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

/** The query parameter by which a relay's URL says that it reads batch frames. */
export const BATCH_FRAMES_PARAMETER = 'frames';

/** True when the URL is one whose server reads batch frames: `startInspectorRelay` gives such URLs. */
export function readsBatchFrames(url: string): boolean {
  try {
    return new URL(url).searchParams.get(BATCH_FRAMES_PARAMETER) === 'batch';
  } catch {
    return false;
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
