import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sessionScript } from '../../src/cli/session-script.js';
import { fileStore } from '../../src/persistence/file-store.js';
import { RECORDED_ANSWER, RECORDED_PROMPT, recordSession } from '../support/recorded-session.js';

const dir = mkdtempSync(path.join(tmpdir(), 'loopchart-session-script-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('sessionScript', () => {
  it('gives the prompt, every attempt as a turn, the instructions, the recorded results of tools it cannot rerun and the expectation', async () => {
    const store = fileStore(dir);
    const { sessionId } = await recordSession(store, 'whole');
    const script = sessionScript((await store.read(sessionId))!, {});
    expect(script.prompt).toBe(RECORDED_PROMPT);
    expect(script.instructions).toBe('You measure files and note what you find.');
    expect(script.tools).toEqual([]);
    expect(script.turns?.[0]).toEqual({ error: { status: 500, message: 'the server had a hiccup' } });
    expect(script.turns?.map((turn) => turn.toolCalls?.map((call) => call.name))).toEqual([undefined, ['measure'], ['note'], undefined]);
    expect(script.toolResults?.['call-note']).toEqual({ tool: 'note', output: { type: 'text', value: 'noted: 8000 characters' } });
    expect(script.expect).toEqual({ outcome: 'completed', textContains: RECORDED_ANSWER });
  });

  it('cut at a checkpoint in the middle of a run, stops there: the turns before it, that many steps, and max-steps expected', async () => {
    const store = fileStore(dir);
    const { sessionId } = await recordSession(store, 'cut');
    const log = (await store.read(sessionId))!;
    const afterCompaction = log.records.find((record) => record.type === 'checkpoint' && record.step === 2);
    const script = sessionScript(log, { at: afterCompaction!.type === 'checkpoint' ? afterCompaction!.id : 0 });
    expect(script.turns).toHaveLength(2);
    expect(script.maxSteps).toBe(1);
    expect(script.expect).toEqual({ outcome: 'max-steps' });
    expect(Object.keys(script.toolResults ?? {})).toEqual(['call-measure']);
  });
});
