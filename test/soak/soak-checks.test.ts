import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import type { SessionRecord } from '../../src/persistence/session-store.js';
import type { SessionInput } from '../../src/scale/advance-session.js';
import { checkSoak, type CheckName } from './soak-checks.js';
import type { SentInput, SoakObservations, TurnState, WorkerObservation } from './soak-observations.js';
import { planText } from './soak-plan.js';

const T0 = 1_700_000_000_000;
const prompt = (tag: string, tools = 1) => planText({ tag, tools, ask: 0, toolMs: 10 });
const user = (text: string): ModelMessage => ({ role: 'user', content: text });
const call = (id: string): ModelMessage => ({ role: 'assistant', content: [{ type: 'tool-call', toolCallId: id, toolName: 'effect', input: { ms: 10 } }] });
const result = (id: string, ran = true): ModelMessage => ({
  role: 'tool',
  content: [{ type: 'tool-result', toolCallId: id, toolName: 'effect', output: { type: 'text', value: ran ? `effect ${id} done` : 'aborted' } }],
});
const text = (value: string): ModelMessage => ({ role: 'assistant', content: [{ type: 'text', text: value }] });

interface CheckpointSpec {
  checkpoint: string;
  outcome?: 'completed' | 'aborted';
  requestIds?: string[];
  at?: number;
}

/** Records as a session writes them: messages at growing indexes, checkpoints counting what came before. */
function recordsOf(items: Array<ModelMessage | CheckpointSpec>): SessionRecord[] {
  const records: SessionRecord[] = [];
  let count = 0;
  let id = 0;
  for (const item of items) {
    if ('checkpoint' in item) {
      records.push({
        type: 'checkpoint',
        id: ++id,
        at: new Date(item.at ?? T0 + 1_000 * id).toISOString(),
        state: item.checkpoint,
        step: 1,
        messageCount: count,
        snapshot: {},
        ...(item.outcome ? { runId: 'run', outcome: item.outcome } : {}),
        ...(item.requestIds ? { requestIds: item.requestIds } : {}),
      });
    } else records.push({ type: 'message', index: count++, message: item });
  }
  return records;
}

/** One session, s01, that ran its prompt's one tool call and completed: the soak as it should be. */
function cleanSoak(): SoakObservations {
  const sent: SentInput = { requestId: 's01:1:prompt', sessionId: 's01', input: { type: 'prompt', prompt: prompt('s01/1') }, at: T0, attempts: 1, acceptedAt: T0 + 10, turn: 'loopchart:s01:s01:1:prompt' };
  return {
    leaseTtlMs: 2_000,
    harness: {
      startedAt: T0,
      workers: [{ id: 'worker-1', slot: 0, pid: 100, startedAt: T0 - 5_000, readyAt: T0 - 1_000 }],
      kills: [],
      pauses: [],
      windows: [{ target: 'postgres', kind: 'cut', mode: 'reset', from: T0 + 20_000, to: T0 + 21_000 }],
      sends: [sent],
    },
    workers: [
      { kind: 'tool-start', session: 's01', toolCallId: 's01/1.c1', epoch: 1, alongside: 0, worker: 'worker-1', pid: 100, t: T0 + 100 },
      { kind: 'effect', session: 's01', toolCallId: 's01/1.c1', epoch: 1, started: T0 + 100, worker: 'worker-1', pid: 100, t: T0 + 110 },
    ],
    final: {
      sessions: [
        {
          sessionId: 's01',
          records: recordsOf([
            user(prompt('s01/1')),
            { checkpoint: 'running.llm.calling', requestIds: ['s01:1:prompt'] },
            call('s01/1.c1'),
            result('s01/1.c1'),
            text('done'),
            { checkpoint: 'idle', outcome: 'completed' },
          ]),
        },
      ],
      turns: [turn({ workflowId: 'loopchart:s01:s01:1:prompt', sessionId: 's01', requestId: 's01:1:prompt' })],
      streams: [{ sessionId: 's01', entries: [1, 1, 2, 2].map((epoch, i) => ({ id: `${i}-0`, epoch, type: 'text-delta' })) }],
      drained: true,
    },
  };
}

function turn(fields: Partial<TurnState> & Pick<TurnState, 'workflowId' | 'sessionId' | 'requestId'>): TurnState {
  return { inputType: 'prompt', status: 'SUCCESS', rejected: [], outcome: 'completed', ...fields };
}

function effect(fields: Partial<Extract<WorkerObservation, { kind: 'effect' }>>): WorkerObservation {
  return { kind: 'effect', session: 's01', toolCallId: 's01/1.c1', epoch: 2, started: T0 + 1_500, worker: 'worker-2', pid: 200, t: T0 + 1_510, ...fields };
}

function send(requestId: string, input: SessionInput, fields: Partial<SentInput> = {}): SentInput {
  return { requestId, sessionId: 's01', input, at: T0 + 2_000, attempts: 1, acceptedAt: T0 + 2_010, turn: 'loopchart:s01:s01:1:prompt', ...fields };
}

const checksFailed = (observed: SoakObservations): CheckName[] => checkSoak(observed).violations.map((violation) => violation.check);

describe('checkSoak', () => {
  it('finds nothing wrong with a soak where every effect, input, history, session and stream is as it should be', () => {
    const verdict = checkSoak(cleanSoak());
    expect(verdict.violations).toEqual([]);
    expect(verdict.counts).toMatchObject({ toolCalls: 1, effects: 1, inputsAccepted: 1, inputsApplied: 1, inputsLost: 0, sessionsTerminal: 1, historiesValid: 1, epochRegressions: 0, cuts: 1 });
  });

  describe('effects', () => {
    it('allows a second effect when the worker of the first was killed after starting it, and counts it apart', () => {
      const observed = cleanSoak();
      observed.harness.kills.push({ worker: 'worker-1', at: T0 + 120 });
      observed.workers.push(effect({}));
      const verdict = checkSoak(observed);
      expect(verdict.violations).toEqual([]);
      expect(verdict.counts).toMatchObject({ effects: 2, duplicatesKilled: 1, duplicatesOther: 0 });
      expect(verdict.excused[0]).toMatchObject({ cause: 'killed', toolCallId: 's01/1.c1' });
    });

    it('allows it when that worker died on its own (a violation of its own), and counts it apart', () => {
      const observed = cleanSoak();
      observed.harness.workers[0]!.exit = { at: T0 + 200, code: 1, signal: null, byHarness: false, output: 'Error: read ECONNRESET' };
      observed.workers.push(effect({}));
      const verdict = checkSoak(observed);
      expect(verdict.counts).toMatchObject({ duplicatesDied: 1, duplicatesOther: 0 });
      expect(verdict.violations.map((violation) => violation.check)).toEqual(['workers']);
    });

    it('allows it when that worker was paused, and counts it apart', () => {
      const observed = cleanSoak();
      observed.harness.pauses.push({ worker: 'worker-1', from: T0 + 105, to: T0 + 1_400 });
      observed.workers.push(effect({}));
      expect(checkSoak(observed).counts).toMatchObject({ duplicatesPaused: 1, duplicatesOther: 0 });
    });

    it('is a violation when the first worker was neither killed nor paused', () => {
      const observed = cleanSoak();
      observed.harness.kills.push({ worker: 'worker-1', at: T0 + 50 }); // before the tool started: not its cause
      observed.workers.push(effect({}));
      const verdict = checkSoak(observed);
      expect(verdict.counts.duplicatesOther).toBe(1);
      expect(verdict.violations[0]!.detail).toMatch(/worker-1 was neither killed nor paused, nor cut off from Postgres, in between/);
    });

    it('allows it when Postgres was cut off in between, even in the same process, and counts it apart', () => {
      const observed = cleanSoak();
      observed.harness.windows.push({ target: 'postgres', kind: 'cut', mode: 'blackhole', from: T0 + 105, to: T0 + 1_000 });
      observed.workers.push(effect({ worker: 'worker-1', pid: 100 }));
      expect(checkSoak(observed)).toMatchObject({ violations: [], counts: { duplicatesCut: 1 } });
      observed.harness.windows[1]!.target = 'redis';
      expect(checkSoak(observed).violations[0]!.detail).toMatch(/one process ran it twice, with no kill, pause or cut in between/);
    });

    it('is a violation when one process ran it twice at once, or it ran after its result was stored', () => {
      const atOnce = cleanSoak();
      atOnce.harness.windows.push({ target: 'postgres', kind: 'stall', from: T0 + 90, to: T0 + 1_000 });
      atOnce.workers.push(effect({ worker: 'worker-1', pid: 100, started: T0 + 105 }));
      expect(checkSoak(atOnce).violations[0]!.detail).toMatch(/two runs at once in one process/);
      const stored = cleanSoak();
      stored.harness.kills.push({ worker: 'worker-1', at: T0 + 120 });
      stored.workers.push(effect({ started: T0 + 9_000, t: T0 + 9_010 })); // the result's checkpoint is at T0 + 2,000
      expect(checkSoak(stored).violations[0]!.detail).toMatch(/its result was stored at \+2.000 s, before the second run started/);
    });

    it('is a violation when a tool starts while another of the same session runs in the same process', () => {
      const observed = cleanSoak();
      observed.workers.push({ kind: 'tool-start', session: 's01', toolCallId: 's01/1.c1', epoch: 2, alongside: 1, worker: 'worker-1', pid: 100, t: T0 + 105 });
      expect(checkSoak(observed).violations[0]!.detail).toMatch(/two attempts of one session at once/);
    });
  });

  describe('inputs', () => {
    it('is a violation when an accepted input is neither applied nor rejected, and names its turn', () => {
      const observed = cleanSoak();
      observed.harness.sends.push(send('s01:1:abort', { type: 'abort' }));
      const verdict = checkSoak(observed);
      expect(verdict.counts.inputsLost).toBe(1);
      expect(verdict.violations[0]).toMatchObject({ check: 'inputs', sessionId: 's01' });
      expect(verdict.violations[0]!.detail).toMatch(/abort s01:1:abort: neither applied nor rejected: accepted at \+2.010 s by turn loopchart:s01:s01:1:prompt \(SUCCESS\)/);
    });

    it('counts an input listed in its own session turn as rejected, and one listed by another session as misrouted', () => {
      const observed = cleanSoak();
      observed.harness.sends.push(send('s01:1:approve', { type: 'approve', toolCallId: 'x' }));
      observed.final.turns[0]!.rejected = [{ requestId: 's01:1:approve', reason: 'not waiting' }];
      expect(checkSoak(observed)).toMatchObject({ violations: [], counts: { inputsRejected: 1 } });
      observed.final.turns.push(turn({ workflowId: 'loopchart:s02:p', sessionId: 's02', requestId: 'p', rejected: [{ requestId: 's01:1:approve', reason: 'not waiting' }] }));
      expect(checkSoak(observed).violations[0]!.detail).toMatch(/reached another session: rejected by turn loopchart:s02:p/);
    });

    it('is a violation when a message is in the history twice, or is recorded as applied but is not in it', () => {
      const doubled = cleanSoak();
      const records = doubled.final.sessions[0]!.records!;
      records.push({ type: 'message', index: 4, message: user(prompt('s01/1')) }, { ...(records.at(-1) as Extract<SessionRecord, { type: 'checkpoint' }>), id: 9, messageCount: 5 });
      expect(checkSoak(doubled).counts.inputsDoubled).toBe(1);
      const dropped = cleanSoak();
      dropped.harness.sends.push(send('s01:1:steer', { type: 'steer', message: prompt('s01/1s', 0) }));
      (dropped.final.sessions[0]!.records!.at(-1) as { requestIds?: string[] }).requestIds = ['s01:1:steer'];
      expect(checkSoak(dropped).violations[0]!.detail).toMatch(/steer s01:1:steer: neither applied nor rejected.*recorded as applied \(checkpoint 2\) but its message is not in the history/);
    });

    it('is a violation when an applied abort did not end its run aborted', () => {
      const observed = cleanSoak();
      observed.harness.sends.push(send('s01:1:abort', { type: 'abort' }));
      (observed.final.sessions[0]!.records![1] as { requestIds?: string[] }).requestIds!.push('s01:1:abort');
      expect(checkSoak(observed).violations[0]!.detail).toMatch(/applied \(checkpoint 1\) but its run ended completed/);
    });

    it('is a violation when an input was never accepted', () => {
      const observed = cleanSoak();
      observed.harness.sends.push(send('s01:2:prompt', { type: 'prompt', prompt: prompt('s01/2') }, { acceptedAt: undefined, attempts: 9, error: 'ECONNREFUSED' }));
      expect(checkSoak(observed).violations[0]!.detail).toMatch(/never accepted by sessionClient.send after 9 attempt\(s\): ECONNREFUSED/);
    });
  });

  it('does not count a call that waits for approval as a call without a result', () => {
    const observed = cleanSoak();
    const records = observed.final.sessions[0]!.records!;
    records.push(
      { type: 'message', index: 4, message: user(prompt('s01/2')) },
      { type: 'message', index: 5, message: call('s01/2.c1') },
      ...recordsOf([{ checkpoint: 'running.awaitingApproval' }]).map((record) => ({ ...record, id: 3, messageCount: 6 }) as SessionRecord),
    );
    observed.harness.sends.push(send('s01:2:prompt', { type: 'prompt', prompt: prompt('s01/2') }, { turn: 'loopchart:s01:s01:2:prompt' }));
    observed.final.turns.push(turn({ workflowId: 'loopchart:s01:s01:2:prompt', sessionId: 's01', requestId: 's01:2:prompt', status: 'PENDING' }));
    expect(checkSoak(observed).violations).toEqual([]);
    (records.at(-1) as { state: string }).state = 'running.llm.calling';
    expect(checkSoak(observed).violations.map((violation) => violation.detail)).toContain('tool call s01/2.c1 has 0 results');
  });

  it('is a violation when a tool call has no result, or a result says it ran with no effect', () => {
    const observed = cleanSoak();
    const records = observed.final.sessions[0]!.records!;
    records.splice(records.length - 1, 0, { type: 'message', index: 4, message: call('s01/1.c2') }, { type: 'message', index: 5, message: result('s01/1.c3') });
    (records.at(-1) as { messageCount: number }).messageCount = 6;
    const details = checkSoak(observed).violations.filter((violation) => violation.check === 'histories').map((violation) => violation.detail);
    expect(details).toEqual(expect.arrayContaining(['tool call s01/1.c2 has 0 results', 'result of s01/1.c3 without a call before it', 'result of s01/1.c3 says it ran, but no worker had its effect']));
  });

  describe('terminal', () => {
    it('is a violation when a session is left running with no turn, or a turn failed', () => {
      const observed = cleanSoak();
      observed.final.sessions[0]!.records!.pop();
      expect(checkSoak(observed).violations.find((violation) => violation.check === 'terminal')!.detail).toMatch(/left in running.llm.calling .* with no turn in progress/);
      const failed = cleanSoak();
      failed.final.turns[0]!.status = 'ERROR';
      failed.final.turns[0]!.error = 'LeaseHeldError';
      expect(checksFailed(failed)).toEqual(['terminal']);
    });

    it('accepts a session that waits for approval with a turn waiting, and refuses one without', () => {
      const observed = cleanSoak();
      observed.final.sessions[0]!.records!.push({ type: 'message', index: 4, message: user(prompt('s01/2')) });
      observed.harness.sends.push(send('s01:2:prompt', { type: 'prompt', prompt: prompt('s01/2') }, { turn: 'loopchart:s01:s01:2:prompt' }));
      observed.final.sessions[0]!.records!.push(...recordsOf([{ checkpoint: 'running.awaitingApproval', requestIds: ['s01:2:prompt'] }]).map((record) => ({ ...record, id: 3, messageCount: 5 }) as SessionRecord));
      observed.final.turns.push(turn({ workflowId: 'loopchart:s01:s01:2:prompt', sessionId: 's01', requestId: 's01:2:prompt', status: 'PENDING' }));
      expect(checkSoak(observed).violations).toEqual([]);
      observed.final.turns.at(-1)!.status = 'SUCCESS';
      expect(checksFailed(observed)).toEqual(['terminal']);
    });
  });

  it('is a violation when the epochs of a stream go down', () => {
    const observed = cleanSoak();
    observed.final.streams[0]!.entries.push({ id: '9-0', epoch: 0, type: 'run-end' });
    const verdict = checkSoak(observed);
    expect(verdict.counts.epochRegressions).toBe(1);
    expect(verdict.violations[0]!.detail).toMatch(/run-end with epoch 0 \(entry 9-0\) after text-delta with epoch 2/);
  });

  it('is a violation when a worker died that the harness did not kill, and not when it did', () => {
    const observed = cleanSoak();
    observed.harness.workers.push({ id: 'worker-2', slot: 1, pid: 200, startedAt: T0, readyAt: T0 + 1, exit: { at: T0 + 5, code: 1, signal: null, byHarness: false, output: "Error: read ECONNRESET\n    at TCP.onStreamRead" } });
    observed.harness.workers.push({ id: 'worker-3', slot: 2, pid: 300, startedAt: T0, readyAt: T0 + 1, exit: { at: T0 + 5, code: null, signal: 'SIGKILL', byHarness: true, output: '' } });
    const verdict = checkSoak(observed);
    expect(verdict.counts.workersDied).toBe(1);
    expect(verdict.violations).toEqual([expect.objectContaining({ check: 'workers', detail: expect.stringMatching(/worker-2 \(pid 200\) died on its own .*exit code 1.*ECONNRESET/s) })]);
  });
});
