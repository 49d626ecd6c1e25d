/**
 * What a session costs on disk per tool step beyond its messages: the run records that let a
 * person step back through it (timeline, model calls, trace) against their budget of 2 KB, and
 * the checkpoints beside them. A 20-step run of a small tool (a path in, a line out) into a file
 * store, measured from the file itself.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { tool } from 'ai';
import { z } from 'zod';
import { createAgent } from '../src/agent.js';
import { scriptedModel } from '../src/test/index.js';
import { fileStore } from '../src/persistence/file-store.js';
import { amount, check, type Row } from './support.js';

const TOOL_STEPS = 20;
const BUDGET_BYTES = 2 * 1024;

export async function sessionSizeBench(): Promise<Row[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'loopchart-bench-size-'));
  try {
    const turns = Array.from({ length: TOOL_STEPS }, (_, index) => ({ toolCalls: [{ id: `call-${index}`, name: 'read', input: { path: `src/file-${index}.ts` } }] }));
    const agent = createAgent({
      model: scriptedModel([...turns, { text: 'Read them all.' }]),
      store: fileStore(dir),
      sessionId: 'size',
      tools: { read: tool({ inputSchema: z.object({ path: z.string() }), execute: async ({ path: file }) => `export const name = '${file}';` }) },
    });
    const result = await agent.run('Read every file.');
    await agent.dispose();
    check(result.outcome === 'completed' && result.stepCount === TOOL_STEPS + 1, 'the measured run must complete its tool steps');
    const bytes: Record<string, number> = {};
    for (const line of (await readFile(path.join(dir, 'size.jsonl'), 'utf8')).split('\n').filter(Boolean)) {
      const type = (JSON.parse(line) as { type: string }).type;
      bytes[type] = (bytes[type] ?? 0) + Buffer.byteLength(line) + 1;
    }
    const perStep = (...types: string[]) => types.reduce((sum, type) => sum + (bytes[type] ?? 0), 0) / result.stepCount;
    const runRecords = perStep('timeline', 'model-call', 'trace');
    const checkpoints = perStep('checkpoint');
    const kb = (value: number) => `${(value / 1024).toFixed(2)} KB/step`;
    return [
      {
        figure: 'session run records per tool step (timeline, model calls, trace)',
        value: kb(runRecords),
        ratio: `timeline ${kb(perStep('timeline'))}, model calls ${kb(perStep('model-call'))}, trace ${kb(perStep('trace'))}`,
        measure: amount(runRecords / 1024, 'KB', 2),
        target: '<= 2 KB',
        max: BUDGET_BYTES / 1024,
        headline: 'session run records per tool step',
      },
      { figure: 'session checkpoints per tool step (for comparison)', value: kb(checkpoints), measure: amount(checkpoints / 1024, 'KB', 2) },
      { figure: 'session messages per tool step (for comparison)', value: kb(perStep('message')), measure: amount(perStep('message') / 1024, 'KB', 2) },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
