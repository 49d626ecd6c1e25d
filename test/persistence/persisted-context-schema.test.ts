import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { isStepCount } from 'ai';
import { describe, expect, it, vi } from 'vitest';
import { createAgent, fileStore } from '../../src/index.js';
import { checkRestorable } from '../../src/persistence/checkpoint-snapshot.js';
import { persistedContextProblems } from '../../src/persistence/persisted-context-schema.js';
import { mockModel } from '../support/mock-model.js';
import { nextEvent } from '../support/next-event.js';
import { recordSession } from '../support/recorded-session.js';
import { addTool } from '../support/tools.js';
import { useTempDir } from '../support/temp-dir.js';

const dir = useTempDir('loopchart-context-schema-');

interface StoredCheckpoint {
  id: number;
  state: string;
  snapshot: { value: unknown; context: { run?: unknown; queues: { steering: unknown[]; followUps: unknown[] }; prunedToolCallIds: unknown[] } };
}

const checkpointsIn = (jsonl: string): StoredCheckpoint[] =>
  jsonl
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { type: string })
    .filter((record): record is StoredCheckpoint & { type: string } => record.type === 'checkpoint');

/** Every checkpoint of the session: its context fits the schema, and checkRestorable takes the whole snapshot. */
function expectEveryCheckpointRestorable(checkpoints: StoredCheckpoint[]): void {
  expect(checkpoints.length).toBeGreaterThan(0);
  for (const checkpoint of checkpoints) {
    expect({ state: checkpoint.state, problems: persistedContextProblems(checkpoint.snapshot.context, checkpoint.state !== 'idle') }).toEqual({ state: checkpoint.state, problems: [] });
    expect(() => checkRestorable(checkpoint.snapshot, 'real', checkpoint.id, checkpoint.state)).not.toThrow();
  }
}

describe('the persisted context schema accepts every checkpoint loopchart writes', () => {
  it('a run through a retry, tool steps, a compaction and an approval, to idle', async () => {
    await recordSession(fileStore(dir()), 'through');
    const checkpoints = checkpointsIn(await readFile(path.join(dir(), 'through.jsonl'), 'utf8'));
    expect(checkpoints.map((checkpoint) => checkpoint.state)).toEqual(expect.arrayContaining(['running.retrying', 'running.awaitingApproval', 'running.llm.calling', 'idle']));
    // After the compaction the run chart holds a summary; the schema takes the checkpoints on either side of it.
    expect(checkpoints.some((checkpoint) => (checkpoint.snapshot.context.run as { compactions?: number } | undefined)?.compactions === 1)).toBe(true);
    expectEveryCheckpointRestorable(checkpoints);
  });

  it('a run held waiting for approval with a follow-up queued, stop conditions and a run deadline', async () => {
    const store = fileStore(dir());
    const agent = createAgent({
      model: mockModel([{ toolCalls: [{ id: 'c1', name: 'add', input: { a: 1, b: 2 } }] }, { text: ['x'], holdBeforeFirst: true }]),
      tools: { add: addTool },
      approval: { ask: ['add'] },
      stopWhen: isStepCount(5),
      timeout: { totalMs: 600_000 },
      store,
      sessionId: 'held',
    });
    const asked = nextEvent(agent, 'approval-request');
    const running = agent.run('add 1 and 2');
    running.catch(() => undefined);
    await asked;
    await vi.waitFor(() => expect(agent.pendingApprovals).toHaveLength(1), { timeout: 30_000 });
    agent.followUp({ role: 'user', content: 'and then?' });
    const calling = nextEvent(agent, 'start-step');
    agent.approve('c1');
    await calling;
    await agent.settled();
    await agent.dispose();
    const checkpoints = checkpointsIn(await readFile(path.join(dir(), 'held.jsonl'), 'utf8'));
    // The second step's call, held when the agent was disposed, and the run's end (aborted) follow the wait.
    expect(checkpoints.map((checkpoint) => checkpoint.state)).toEqual(['running.llm.calling', 'running.awaitingApproval', 'running.llm.calling', 'idle']);
    expect(checkpoints[2]!.snapshot.context.queues.followUps).toHaveLength(1);
    expect(checkpoints[2]!.snapshot.context.run).toMatchObject({ deadline: expect.any(Number), stepRecords: [expect.anything()] });
    expectEveryCheckpointRestorable(checkpoints);
  });

  it('a session of format version 1 (written by an earlier loopchart)', () => {
    const checkpoints = checkpointsIn(readFileSync(path.join(import.meta.dirname, '../fixtures/session-format-1.jsonl'), 'utf8'));
    expect(new Set(checkpoints.map((checkpoint) => checkpoint.state))).toEqual(new Set(['idle', 'running.awaitingApproval', 'running.llm.calling', 'running.retrying']));
    expectEveryCheckpointRestorable(checkpoints);
  });
});
