import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Outcome } from '../src/core/result.js';
import { createAgent } from '../src/agent.js';
import { scriptedModel } from '../src/test/scripted-model.js';
import { expectValidHistory } from './support/history.js';
import type { AgentEvent } from '../src/core/events.js';
import { agentScript, type AgentScript } from './verification/agent-scripts.js';
import { runScript, scriptRunProblems, type ScriptRun } from './verification/run-script.js';

/**
 * DESIGN invariants 1–3 over random scripted-model runs through `createAgent`:
 * text, tool calls (existing and unknown tools, valid and invalid input),
 * every finishReason, provider errors at the start and mid-stream, stalled
 * streams, aborts at random points, random maxSteps, toolExecution, doomLoop
 * and retry settings, both step implementations. A failure prints the shrunk
 * script (plain JSON: paste it into `runScript`).
 */

/** Fixed, so a run of the suite is reproducible; change it locally to explore further. */
const SEED = 20_250_609;
const RUNS = 500;

describe('invariants over random scripted runs (fast-check)', () => {
  it(`holds invariants 1–3 for ${RUNS} random runs`, async () => {
    const outcomes = new Map<Outcome, number>();
    await fc.assert(
      fc.asyncProperty(agentScript, async (script) => {
        const run = await runScript(script);
        expect(scriptRunProblems(script, run)).toEqual([]);
        await expectValidHistory(run.result.messages);
        outcomes.set(run.result.outcome, (outcomes.get(run.result.outcome) ?? 0) + 1);
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: false },
    );
    console.log(`property runs by outcome: ${[...outcomes].map(([outcome, count]) => `${outcome} ${count}`).join(', ')}`);
    // The generator reaches the outcomes these settings allow (denied needs an approval policy, timeout a run deadline).
    expect([...outcomes.keys()].sort()).toEqual(['aborted', 'completed', 'content-filter', 'context-limit', 'doom-loop', 'failed', 'max-steps']);
  }, 120_000);
});

describe('the invariant checks catch broken runs', () => {
  const script: AgentScript = {
    maxSteps: 3,
    toolExecution: 'parallel',
    doomLoop: false,
    maxAttempts: 2,
    approvalAnswer: 'approve',
    abortAfterEvents: null,
    steerAfterEvents: null,
    followUpAfterEvents: null,
    step: 'direct',
    turns: [
      { error: { status: 500, message: 'Internal server error', after: 1 }, text: 'lost words' },
      { text: 'Adding.', toolCalls: [{ name: 'add', input: { a: 1, b: 2 } }] },
      { text: 'It is 3.' },
    ],
  };
  const broken = (change: (run: ScriptRun) => ScriptRun) => async () => scriptRunProblems(script, change(await runScript(script)));
  const withoutEvent = (run: ScriptRun, drop: (event: AgentEvent) => boolean): ScriptRun => ({ ...run, events: run.events.filter((event) => !drop(event)) });

  it('passes the real run', async () => {
    const run = await runScript(script);
    expect(run.result.outcome).toBe('completed');
    expect(run.events.filter((event) => event.type === 'retry')).toHaveLength(1);
    expect(scriptRunProblems(script, run)).toEqual([]);
  });

  it.each([
    ['a message event is lost', (run: ScriptRun) => withoutEvent(run, (event) => event.type === 'message' && event.message.role === 'tool'), /not what the message events reported/],
    [
      'a tool call is left without its result',
      (run: ScriptRun) => ({ ...run, result: { ...run.result, messages: run.result.messages.filter((message) => message.role !== 'tool') } }),
      /has 0 results/,
    ],
    ['a second run-end arrives', (run: ScriptRun) => ({ ...run, lateEvents: [run.events.at(-1)!] }), /2 run-end events/],
    ['the agent is not back in idle', (run: ScriptRun) => ({ ...run, finalState: { running: 'toolExec' }, isRunning: true }), /after the run the agent is in/],
    ['more LLM calls than the budget', (run: ScriptRun) => ({ ...run, llmCalls: 5 }), /5 LLM calls > maxSteps 3 \+ 1 retries/],
    ['the failed attempt is not reported as failed', (run: ScriptRun) => withoutEvent(run, (event) => event.type === 'retry'), /LLM calls|streamed "lost"/],
    [
      "a successful attempt's text is not its deltas",
      (run: ScriptRun) => withoutEvent(run, (event) => event.type === 'text-delta' && event.text.includes('3')),
      /its message says/,
    ],
  ] as const)('reports a run where %s', async (_name, change, message) => {
    const problems = await broken(change)();
    expect(problems.join('\n')).toMatch(message);
  });
});

describe('regressions found by the property tests', () => {
  // Was (src/actors/step-watchdog.ts): the watchdog armed one timer for the nearest deadline at
  // construction — with firstChunkMs set, the first-chunk deadline. chunk() re-arms only when no
  // timer is pending (`if (this.timer === undefined) this.arm()`), so after the first chunk the
  // first-chunk timer stays armed, and a stream that stalls after its first chunk is ended at
  // startedAt + firstChunkMs instead of lastChunkAt + chunkMs. With firstChunkMs 30 s and chunkMs 30
  // the stall below ends after ~30 s ("No chunk for 30 ms"); with the usual firstChunkMs >
  // chunkMs (say 60 s and 10 s) a stall right after the first chunk waits 60 s, not 10 s.
  it('ends a stream that stalls after its first chunk chunkMs after that chunk, also when firstChunkMs is longer', async () => {
    const agent = createAgent({
      model: scriptedModel([{ text: 'Hello.', stall: true }]),
      retry: { maxAttempts: 1 },
      timeout: { firstChunkMs: 30_000, chunkMs: 30 },
    });
    const result = await agent.run('Say hello.');
    expect(result.error?.message).toBe('No chunk for 30 ms (timeout.chunkMs).');
    // Half of firstChunkMs: a stall ended by the first-chunk timer would take all of it.
    expect(result.durationMs).toBeLessThan(15_000);
  });
});
