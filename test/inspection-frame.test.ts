import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BATCH_HEADER, batchFrame, batchFrameBytes, eventText, frameEventCount, frameEventTexts, framesReadAt, standaloneEventTexts, standaloneTextLimit } from '../src/inspect/inspection-frame.js';
import { RecentFrames } from '../src/inspect/recent-frames.js';
import { expandingFrame } from './support/expanding-frame.js';

describe('inspection frames', () => {
  it('gives back every event text of a batch frame, in order, whatever the events hold', () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue(), { minLength: 1, maxLength: 20 }), (events) => {
        const texts = events.map((event) => JSON.stringify({ type: '@xstate.event', event }));
        const frame = batchFrame(texts);
        expect(frameEventTexts(frame)).toEqual(texts);
        expect(frameEventCount(Buffer.from(frame))).toBe(texts.length);
        expect(frameEventTexts(batchFrame(texts, true))).toEqual(texts);
        expect(frameEventCount(Buffer.from(batchFrame(texts, true)))).toBe(texts.length);
      }),
    );
  });

  it('writes a batch frame as bytes that are its text in UTF-8, whatever characters the events hold', () => {
    const texts = (strings: string[]) => strings.map((text) => JSON.stringify({ type: '@xstate.event', text }));
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'grapheme' }), { maxLength: 30 }), fc.boolean(), (strings, referring) => {
        expect(batchFrameBytes(texts(strings), referring).toString('hex')).toBe(Buffer.from(batchFrame(texts(strings), referring)).toString('hex'));
      }),
    );
    // Wide characters where the buffer sized for one byte a character runs out: first, last, and all of it.
    for (const strings of [['é'.repeat(5000), 'a'], ['a', '😀'.repeat(3000)], ['€', '€'], Array.from({ length: 200 }, (_, i) => (i % 2 ? 'x' : '語'.repeat(i)))]) {
      expect(batchFrameBytes(texts(strings), true).equals(Buffer.from(batchFrame(texts(strings), true)))).toBe(true);
    }
    expect(batchFrameBytes([]).toString()).toBe(batchFrame([]));
  });

  it('takes any frame without the batch header as one event, even one with newlines in it', () => {
    const pretty = JSON.stringify({ type: '@xstate.event', event: { type: 'x' } }, null, 2);
    expect(frameEventTexts(pretty)).toEqual([pretty]);
    expect(frameEventCount(Buffer.from(pretty))).toBe(1);
    expect(frameEventTexts(BATCH_HEADER)).toEqual([BATCH_HEADER]);
  });

  it('serialises an event with a cycle or a BigInt instead of throwing', () => {
    const event: Record<string, unknown> = { type: '@xstate.event', big: 10n };
    event.self = event;
    expect(JSON.parse(eventText(event))).toEqual({ type: '@xstate.event', big: '10', self: '[circular]' });
  });

  it('batches only towards a URL that says it reads batch frames, and refers back only where it says it resolves references', () => {
    expect(framesReadAt('ws://127.0.0.1:1234/?token=abc&frames=references')).toBe('references');
    expect(framesReadAt('ws://127.0.0.1:1234/?token=abc&frames=batch')).toBe('batch');
    expect(framesReadAt('ws://127.0.0.1:1234/?token=abc&frames=other')).toBe('single');
    expect(framesReadAt('ws://127.0.0.1:1234/?token=abc')).toBe('single');
    expect(framesReadAt('ws://localhost:8080')).toBe('single');
    expect(framesReadAt('not a url')).toBe('single');
  });

  it('gives a client that reads one event per frame the texts as they came when nothing refers back, and whole events when something does', () => {
    const plain = ['{"type":"@xstate.event","event":{"type":"a"}}', '{"type":"@xstate.event","event":{"type":"b"}}'];
    expect(standaloneEventTexts(batchFrame(plain))).toEqual(plain);
    const referring = ['{"type":"@xstate.event","event":{"type":"a","n":1}}', '{"type":"@xstate.snapshot","sessionId":"x:0","event":{"@loopchart.same":0},"snapshot":{"status":"active"}}'];
    // Only a frame that says it refers back is resolved: the same texts in a plain batch are data.
    expect(standaloneEventTexts(batchFrame(referring))).toEqual(referring);
    expect(standaloneEventTexts(batchFrame(referring, true)).map((text) => JSON.parse(text) as unknown)).toEqual([
      { type: '@xstate.event', event: { type: 'a', n: 1 } },
      { type: '@xstate.snapshot', sessionId: 'x:0', event: { type: 'a', n: 1 }, snapshot: { status: 'active' } },
    ]);
  });

  it('gives no events for a referring frame whose events written whole would go past the limit, and stops resolving there', () => {
    const snapshot = { status: 'active', context: { note: 'x'.repeat(1000) } };
    const lines = [JSON.stringify({ type: '@xstate.snapshot', sessionId: 'x:0', event: { type: 'a' }, snapshot })];
    for (let line = 1; line <= 50; line++) lines.push(JSON.stringify({ type: '@xstate.snapshot', sessionId: 'x:0', event: { type: 'a' }, snapshot: { '@loopchart.patch': { base: line - 1 } } }));
    const frame = batchFrame(lines, true);
    const whole = standaloneEventTexts(frame, Number.POSITIVE_INFINITY);
    expect(whole).toHaveLength(51);
    const written = whole.reduce((total, text) => total + text.length, 0);
    expect(written).toBeGreaterThan(frame.length * 5);
    expect(standaloneEventTexts(frame, written)).toEqual(whole);
    expect(standaloneEventTexts(frame, written - 1)).toEqual([]);
    // The default limit: 16 times the frame, at least 1 MiB, at most 64 MiB; a frame far below it is written whole.
    expect(standaloneTextLimit(1000)).toBe(2 ** 20);
    expect(standaloneTextLimit(2 * 2 ** 20)).toBe(32 * 2 ** 20);
    expect(standaloneTextLimit(100 * 2 ** 20)).toBe(64 * 2 ** 20);
    expect(standaloneEventTexts(frame)).toEqual(whole);
  });

  it('does not write out a frame that refers to one large snapshot many times (it would expand past 16 times its size)', () => {
    const frame = expandingFrame({ snapshotBytes: 2 ** 20, copies: 100 });
    expect(frame.length).toBeLessThan(2 * 2 ** 20);
    expect(standaloneEventTexts(frame)).toEqual([]);
  });
});

describe('RecentFrames', () => {
  const frameOf = (events: number) => Buffer.from(events === 1 ? '{"type":"e"}' : batchFrame(Array.from({ length: events }, () => '{"type":"e"}')));

  it('keeps the newest frames whole, enough of them to hold the newest events up to the limit', () => {
    const recent = new RecentFrames(5);
    const frames = [frameOf(3), frameOf(1), frameOf(2), frameOf(4)];
    for (const frame of frames) recent.add(frame);
    // 4 + 2 = 6 events already hold the newest 5: the older frames are gone, none is cut.
    expect(recent.frames()).toEqual([frames[2], frames[3]]);
  });

  it('keeps a frame larger than the limit, and keeps nothing when the limit is 0', () => {
    const recent = new RecentFrames(2);
    const big = frameOf(10);
    recent.add(big);
    expect(recent.frames()).toEqual([big]);
    const none = new RecentFrames(0);
    none.add(big);
    expect(none.frames()).toEqual([]);
  });

  it('holds no more bytes than its byte bound: the oldest frames go first, whatever the event limit allows', () => {
    const recent = new RecentFrames(1000, 100);
    const frames = Array.from({ length: 10 }, (_, index) => Buffer.from(JSON.stringify({ type: 'e', pad: 'x'.repeat(20), index })));
    for (const frame of frames) recent.add(frame);
    const kept = recent.frames();
    expect(recent.size).toBeLessThanOrEqual(100);
    expect(recent.size).toBe(kept.reduce((sum, frame) => sum + frame.length, 0));
    // The newest frames, without a gap: as many as fit.
    expect(kept).toEqual(frames.slice(frames.length - kept.length));
    expect(kept.length).toBe(Math.floor(100 / frames[9]!.length));
  });

  it('a frame larger than the byte bound on its own is not kept, and neither is anything older (no gap in what is replayed)', () => {
    const recent = new RecentFrames(1000, 100);
    recent.add(Buffer.from('{"type":"old"}'));
    recent.add(Buffer.from(JSON.stringify({ type: 'huge', pad: 'x'.repeat(200) })));
    expect(recent.frames()).toEqual([]);
    expect(recent.size).toBe(0);
    const next = Buffer.from('{"type":"next"}');
    recent.add(next);
    expect(recent.frames()).toEqual([next]);
  });
});
