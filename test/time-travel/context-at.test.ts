import { describe, expect, it } from 'vitest';
import { fileStore } from '../../src/persistence/file-store.js';
import { SessionFormatError, type SessionRecord } from '../../src/persistence/session-store.js';
import { contextAt } from '../../src/time-travel/context-at.js';
import { openSessionRecord } from '../../src/time-travel/session-record.js';
import { recordSession } from '../support/recorded-session.js';
import { useTempDir } from '../support/temp-dir.js';

const dir = useTempDir('loopchart-context-at-');

describe('contextAt on a checkpoint of the wrong shape', () => {
  it.each([
    ['a number', 42, '42'],
    ['text', 'call-measure', '"call-measure"'],
  ])('pruned tool call ids that are %s are refused by name instead of failing with a bare TypeError', async (_name, pruned, shown) => {
    const store = fileStore(dir());
    const { sessionId } = await recordSession(store, 'viewed');
    const log = (await store.read(sessionId))!;
    const view = (await openSessionRecord(store, sessionId))!;
    const point = view.runs[0]!.timeline.length - 1;
    const records = log.records.map((record): SessionRecord =>
      record.type === 'checkpoint' ? ({ ...record, snapshot: { ...(record.snapshot as object), context: { ...(record.snapshot as { context: object }).context, prunedToolCallIds: pruned } } }) : record,
    );
    const lastCheckpoint = log.records.filter((record) => record.type === 'checkpoint').at(-1) as { id: number };
    expect(() => contextAt({ ...log, records }, view, 0, point)).toThrow(
      new SessionFormatError(`session viewed: checkpoint ${lastCheckpoint.id}'s context.prunedToolCallIds is not a list of tool call ids, but ${shown}: the session was written by another version of loopchart, or changed by hand`),
    );
  });
});
