import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fileStore } from '../../src/persistence/file-store.js';
import { stateName } from '../../src/machine/state-name.js';
import { inspectionReplay } from '../../src/playback/inspection-replay.js';
import { openSessionRecord } from '../../src/time-travel/session-record.js';

describe('a session replayed as inspection events', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it('gives a session written before timelines one snapshot per checkpoint, and invents no event for them', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'loopchart-inspection-replay-'));
    dirs.push(dir);
    copyFileSync('test/fixtures/session-format-1.jsonl', path.join(dir, 'old-format.jsonl'));
    const view = (await openSessionRecord(fileStore(dir), 'old-format'))!;
    const events = inspectionReplay(view, '{"id":"agent"}');
    expect(events.map((event) => event.type)).toEqual(['@xstate.actor', ...view.checkpoints.map(() => '@xstate.snapshot')]);
    const snapshots = events.slice(1) as Array<{ snapshot: { value: unknown; context: { checkpoint?: number } } }>;
    expect(snapshots.map(({ snapshot }) => stateName(snapshot.value))).toEqual(view.checkpoints.map((checkpoint) => checkpoint.state));
    expect(snapshots.map(({ snapshot }) => snapshot.context.checkpoint)).toEqual(view.checkpoints.map((checkpoint) => checkpoint.id));
  });
});
