import { describe, expect, it } from 'vitest';
import { agentMachine } from '../../src/machine/agent-machine.js';
import { machineGraph } from '../../src/machine/machine-graph.js';
import { packBars, timelineLanes } from '../../src/report/timeline-lanes.js';
import type { RunTrace } from '../../src/core/run-trace.js';
import { usageFrom } from '../../src/core/usage.js';

const graph = machineGraph(agentMachine);

function trace(overrides: Partial<RunTrace>): RunTrace {
  return { version: 1, runId: 'r', startedAt: 0, durationMs: 100, outcome: 'completed', states: [], transitions: [], steps: [], retries: [], compactions: [], hooks: [], ...overrides };
}

describe('timelineLanes', () => {
  it('gives each visited state a lane, in the statechart order, with a bar per visit', () => {
    const timeline = timelineLanes(
      trace({
        states: [
          { state: 'idle', enteredAt: 0, leftAt: 0 },
          { state: 'running.nextStep', enteredAt: 0, leftAt: 1 },
          { state: 'running.llm.calling', enteredAt: 1, leftAt: 30 },
          { state: 'running.deciding', enteredAt: 30, leftAt: 30 },
          { state: 'running.toolExec', enteredAt: 30, leftAt: 60 },
          { state: 'running.nextStep', enteredAt: 60, leftAt: 60 },
          { state: 'running.llm.calling', enteredAt: 60, leftAt: 100 },
        ],
      }),
      graph,
    );
    expect(timeline.lanes.map((lane) => lane.label)).toEqual(['idle', 'running.nextStep', 'running.llm.calling', 'running.deciding', 'running.toolExec']);
    const calling = timeline.lanes.find((lane) => lane.state === 'running.llm.calling')!;
    expect(calling.bars).toEqual([
      expect.objectContaining({ start: 1, end: 30, kind: 'llm', title: 'running.llm.calling · +1 ms → +30 ms (29 ms)' }),
      expect.objectContaining({ start: 60, end: 100, kind: 'llm' }),
    ]);
    expect(timeline.lanes.find((lane) => lane.state === 'running.deciding')!.bars[0]!.kind).toBe('transient');
    expect(timeline.lanes.find((lane) => lane.state === 'running.toolExec')!.bars[0]!.kind).toBe('tool');
  });

  it('adds a lane of LLM calls and packs overlapping tool calls into lanes of their own', () => {
    const usage = usageFrom({ inputTokens: 1, outputTokens: 1 });
    const timeline = timelineLanes(
      trace({
        durationMs: 50,
        steps: [
          {
            step: 1,
            attempts: 1,
            startedAt: 0,
            durationMs: 80,
            firstChunkMs: 5,
            finishReason: 'tool-calls',
            usage,
            text: '',
            toolCalls: [
              { toolCallId: 'a', toolName: 'read', input: {}, startedAt: 10, durationMs: 20, isError: false },
              { toolCallId: 'b', toolName: 'grep', input: {}, startedAt: 15, durationMs: 5, isError: true },
              { toolCallId: 'c', toolName: 'ls', input: {}, startedAt: 40 },
            ],
          },
        ],
      }),
      graph,
    );
    expect(timeline.totalMs).toBe(80);
    expect(timeline.lanes.map((lane) => lane.label)).toEqual(['LLM calls', 'tools', '']);
    expect(timeline.lanes[0]!.bars[0]!.title).toBe('step 1 · +0 ms → +80 ms (80 ms) · first chunk after 5 ms · tool-calls');
    expect(timeline.lanes[1]!.bars.map((bar) => bar.kind)).toEqual(['tool', 'tool']);
    expect(timeline.lanes[2]!.bars).toEqual([expect.objectContaining({ kind: 'tool-error', title: expect.stringContaining('grep (step 1)') })]);
    expect(timeline.lanes[1]!.bars[1]!.title).toContain('no result');
  });

  it('packBars puts intervals that touch in one row and overlapping ones in the next', () => {
    const rows = packBars([
      { start: 0, end: 10 },
      { start: 5, end: 8 },
      { start: 10, end: 12 },
      { start: 6, end: 7 },
    ]);
    expect(rows).toEqual([
      [{ start: 0, end: 10 }, { start: 10, end: 12 }],
      [{ start: 5, end: 8 }],
      [{ start: 6, end: 7 }],
    ]);
  });
});
