import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { redactingStore } from '../../src/persistence/redacting-store.js';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent } from '../../src/agent.js';
import { scriptedModel } from '../../src/test/index.js';
import { fileStore } from '../../src/persistence/file-store.js';
import { pgStore } from '../../src/postgres/pg-store.js';
import type { SessionStore } from '../../src/persistence/session-store.js';
import { contextAt } from '../../src/time-travel/context-at.js';
import { openSessionRecord } from '../../src/time-travel/session-record.js';
import { postgresBinary, startPostgres, type PostgresServer } from '../support/postgres-server.js';
import { RECORDED_ANSWER, recordSession } from '../support/recorded-session.js';

const postgresBin = postgresBinary();
let server: PostgresServer | undefined;
let pool: pg.Pool | undefined;
const dirs: string[] = [];

beforeAll(async () => {
  if (postgresBin === undefined) return;
  server = await startPostgres(postgresBin);
  pool = new pg.Pool({ connectionString: server.url, max: 4 });
  pool.on('error', () => undefined);
}, 60_000);
afterAll(async () => {
  await pool?.end();
  await server?.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Secrets to redact, as a run's keys would be (the recorded run's tool inputs do not carry it). */
const SECRET = 'sk-not-in-this-run';

const stores: Array<[string, () => SessionStore, boolean]> = [
  [
    'fileStore',
    () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'loopchart-record-'));
      dirs.push(dir);
      return redactingStore(fileStore(dir), [SECRET]);
    },
    false,
  ],
  ['pgStore', () => redactingStore(pgStore(pool!), [SECRET]), postgresBin === undefined],
];

describe.each(stores)('a session recorded in %s', (_name, makeStore, skip) => {
  it.skipIf(skip)('holds every transition, model call and the trace of its run, and the context at each point', async () => {
    const store = makeStore();
    const { sessionId, result } = await recordSession(store, `record-${_name}`);
    expect(result.outcome).toBe('completed');
    const view = (await openSessionRecord(store, sessionId))!;
    expect(view.warnings).toEqual([]);
    expect(view.runs).toHaveLength(1);
    const [run] = view.runs;
    expect(run!.ended).toBe(true);

    // The timeline is one unbroken walk through the chart, and its states are the trace's.
    run!.timeline.forEach((point, index) => {
      expect(point.index).toBe(index);
      if (index > 0) expect(point.from).toBe(run!.timeline[index - 1]!.to);
    });
    expect(run!.timeline[0]!.from).toBe('idle');
    expect(run!.timeline.at(-1)!.to).toBe('idle');
    expect(run!.trace.states.map((state) => state.state)).toEqual(result.trace!.states.map((state) => state.state));
    expect(run!.timeline.map((point) => point.event)).toEqual(expect.arrayContaining(['agent.approve', 'retry.due', 'xstate.done.actor.compaction']));

    // Every checkpoint is at a point of the timeline.
    const claimed = run!.timeline.flatMap((point) => (point.checkpointId === undefined ? [] : [point.checkpointId]));
    expect(claimed).toEqual(view.checkpoints.map((checkpoint) => checkpoint.id));

    // Each attempt of each step: the failed first try, the retry, the two tool steps, the answer.
    expect(run!.modelCalls.map((call) => [call.step, call.attempt, call.error?.kind, call.response?.toolCalls.map((toolCall) => toolCall.toolName)])).toEqual([
      [1, 1, 'server', undefined],
      [1, 2, undefined, ['measure']],
      [2, 1, undefined, ['note']],
      [3, 1, undefined, []],
    ]);
    expect(run!.modelCalls[0]!.error).toEqual({ kind: 'server', message: 'the server had a hiccup', status: 500 });
    expect(run!.modelCalls.at(-1)!.response!.text).toBe(RECORDED_ANSWER);
    expect(run!.modelCalls[1]!.request).toMatchObject({ messageCount: 7, tools: ['measure', 'note'], settings: { model: 'scripted:scripted', maxSteps: 25 } });

    // The trace as the run reported it: steps, retries, compactions and tool outputs' previews.
    expect(run!.trace.steps).toEqual(result.trace!.steps);
    expect(run!.trace.retries).toEqual(result.trace!.retries);
    expect(run!.trace.compactions).toEqual(result.trace!.compactions);
    expect(run!.trace.outcome).toBe('completed');

    // The context: the whole history before the compaction, its summary after it.
    const log = (await store.read(sessionId))!;
    const firstCall = run!.timeline.findIndex((point) => point.checkpointId === 1);
    expect(contextAt(log, view, 0, firstCall)).toHaveLength(7);
    const afterCompaction = run!.timeline.findIndex((point) => point.event === 'xstate.done.actor.compaction');
    expect(JSON.stringify(contextAt(log, view, 0, afterCompaction)[0])).toContain('Summary of the earlier conversation');
    expect(contextAt(log, view, 0, run!.timeline.length - 1)).toEqual(result.messages);
  });
});

describe('model calls in a recorded session', () => {
  it('each has its response, though the step it belongs to ends only after its tools ran and the next call began', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'loopchart-record-'));
    dirs.push(dir);
    const store = fileStore(dir);
    const turns = [0, 1].map((index) => ({ toolCalls: [{ id: `call-${index}`, name: 'read', input: { path: `f${index}` } }] }));
    const agent = createAgent({
      model: scriptedModel([...turns, { text: 'Both read.' }]),
      store,
      sessionId: 'tool-steps',
      tools: { read: tool({ inputSchema: z.object({ path: z.string() }), execute: async ({ path: file }) => `content of ${file}` }) },
    });
    expect((await agent.run('Read both.')).outcome).toBe('completed');
    await agent.dispose();
    const view = (await openSessionRecord(store, 'tool-steps'))!;
    expect(view.runs[0]!.modelCalls.map((call) => [call.step, call.response?.finishReason, call.response?.toolCalls.map((toolCall) => toolCall.toolCallId)])).toEqual([
      [1, 'tool-calls', ['call-0']],
      [2, 'tool-calls', ['call-1']],
      [3, 'stop', []],
    ]);
    expect(view.runs[0]!.modelCalls.every((call) => call.durationMs !== undefined && call.durationMs >= 0)).toBe(true);
  });
});

describe('a recorded session and its secrets', () => {
  it('keeps no secret in its run records', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'loopchart-record-'));
    dirs.push(dir);
    // The note's input: in the model call's response, the trace's tool call and the history.
    const store = redactingStore(fileStore(dir), ['8000 characters']);
    const { sessionId } = await recordSession(store, 'redacted');
    const text = readFileSync(path.join(dir, `${sessionId}.jsonl`), 'utf8');
    const runRecords = text.split('\n').filter((line) => /^\{"type":"(model-call|trace|timeline)"/.test(line));
    expect(runRecords.some((line) => line.includes('"toolName":"note"'))).toBe(true);
    expect(runRecords.some((line) => line.includes('[redacted]'))).toBe(true);
    expect(text).not.toContain('8000 characters');
  });
});
