import { batchFrame } from '../../src/inspect/inspection-frame.js';

/**
 * A referring batch frame that is small but large written whole: one snapshot
 * carrying `snapshotBytes` of data, then `copies` lines that each patch the
 * line before with nothing, so each resolves to that whole snapshot again.
 */
export function expandingFrame({ snapshotBytes = 2 ** 20, copies = 100 }: { snapshotBytes?: number; copies?: number } = {}): string {
  const base = JSON.stringify({ type: '@xstate.snapshot', sessionId: 'x:0', snapshot: { status: 'active', context: { blob: 'x'.repeat(snapshotBytes) } } });
  const copy = (line: number) => `{"type":"@xstate.snapshot","sessionId":"x:0","snapshot":{"@loopchart.patch":{"base":${line - 1}}}}`;
  return batchFrame([base, ...Array.from({ length: copies }, (_, index) => copy(index + 1))], true);
}
