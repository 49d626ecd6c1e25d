import fc from 'fast-check';
import type { ScriptTurn } from '../../src/test/script-schema.js';

/**
 * Random agent runs as plain JSON, so fast-check prints a shrunk
 * counterexample that can be pasted into a test: the agent's settings, the
 * scripted model's turns, and when the caller aborts and how it answers
 * approval requests.
 */
export interface AgentScript {
  maxSteps: number;
  toolExecution: 'parallel' | 'sequential';
  doomLoop: false | { threshold: number; action: 'stop' | 'ask' };
  /** Attempts per LLM call (1: no retries); the backoff is 1 ms. */
  maxAttempts: number;
  /** What the caller answers when a doom-loop call is asked about; `timeout`: nothing (approvalTimeoutMs denies it). */
  approvalAnswer: 'approve' | 'deny' | 'timeout';
  /** The caller aborts as the n-th event (1-based) arrives; null: never. */
  abortAfterEvents: number | null;
  /** The caller steers (`agent.steer`) as the n-th event arrives; null: never. */
  steerAfterEvents: number | null;
  /** The caller queues a follow-up (`agent.followUp`) as the n-th event arrives; null: never. */
  followUpAfterEvents: number | null;
  /** The step implementation: the default `directStep`, or the AI SDK's `streamLanguageModelCallStep`. */
  step: 'direct' | 'sdk';
  turns: ScriptTurn[];
}

const finishReasons = ['stop', 'length', 'content-filter', 'tool-calls', 'error', 'interrupted', 'other'] as const;

const texts = fc.constantFrom('Hello.', 'The answer is 4.', 'Let me check that for you.', ['one', ' two', ' three']);

/** Calls to existing and unknown tools, with valid and invalid input; few enough that repeats (doom loops) are common. */
const toolCall = fc.constantFrom(
  { name: 'echo', input: { text: 'hi' } },
  { name: 'echo', input: { text: 'again' } },
  { name: 'echo', input: { text: 5 } },
  { name: 'echo', input: '{"text": "cut' },
  { name: 'add', input: { a: 1, b: 2 } },
  { name: 'fail', input: {} },
  { name: 'missing', input: { path: '/' } },
);

const textTurn: fc.Arbitrary<ScriptTurn> = fc.record(
  { text: texts, finishReason: fc.constantFrom(...finishReasons) },
  { requiredKeys: ['text'] },
);

const toolTurn: fc.Arbitrary<ScriptTurn> = fc.record(
  {
    text: texts,
    toolCalls: fc.array(toolCall, { minLength: 1, maxLength: 3 }),
    finishReason: fc.constantFrom<ScriptTurn['finishReason']>('tool-calls', 'stop', 'other', 'length', 'content-filter'),
  },
  { requiredKeys: ['toolCalls'] },
);

/** Provider errors: 429 and 500 (retryable), 400 and 401 (not), a context overflow, a reset connection. */
const providerError = fc.constantFrom(
  { status: 429, message: 'Rate limit reached' },
  { status: 500, message: 'Internal server error' },
  { status: 400, message: 'Invalid request: unknown parameter' },
  { status: 401, message: 'Invalid API key' },
  { status: 400, message: "This model's maximum context length is 8192 tokens" },
  { message: 'socket hang up' },
);

const errorTurn: fc.Arbitrary<ScriptTurn> = fc.oneof(
  providerError.map((error): ScriptTurn => ({ error })),
  fc
    .tuple(providerError, texts, fc.integer({ min: 0, max: 2 }))
    .map(([error, text, after]): ScriptTurn => ({ text, error: { ...error, after } })),
);

/** A stream that sends its text and then nothing: the chunk time limit ends it as a `timeout`. */
const stallTurn: fc.Arbitrary<ScriptTurn> = texts.map((text): ScriptTurn => ({ text, stall: true }));

const cutTurn: fc.Arbitrary<ScriptTurn> = texts.map((text): ScriptTurn => ({ text, endWithoutFinish: true }));

const turn: fc.Arbitrary<ScriptTurn> = fc.oneof(
  { arbitrary: textTurn, weight: 3 },
  { arbitrary: toolTurn, weight: 5 },
  { arbitrary: errorTurn, weight: 2 },
  { arbitrary: stallTurn, weight: 1 },
  { arbitrary: cutTurn, weight: 1 },
);

/** Random turns, or the same tool turn a few times first: a model stuck in a loop (doom-loop detection, approvals). */
const turns: fc.Arbitrary<ScriptTurn[]> = fc.oneof(
  fc.array(turn, { minLength: 1, maxLength: 8 }),
  fc
    .tuple(toolTurn, fc.integer({ min: 2, max: 4 }), fc.array(turn, { maxLength: 4 }))
    .map(([repeated, times, rest]) => [...Array.from({ length: times }, () => repeated), ...rest]),
);

export const agentScript: fc.Arbitrary<AgentScript> = fc.record({
  maxSteps: fc.integer({ min: 1, max: 5 }),
  toolExecution: fc.constantFrom('parallel', 'sequential'),
  doomLoop: fc.oneof(
    fc.constant(false as const),
    fc.record({ threshold: fc.integer({ min: 2, max: 3 }), action: fc.constantFrom('stop', 'ask') }),
  ),
  maxAttempts: fc.integer({ min: 1, max: 3 }),
  approvalAnswer: fc.constantFrom('approve', 'deny', 'timeout'),
  abortAfterEvents: fc.option(fc.integer({ min: 1, max: 40 }), { nil: null }),
  steerAfterEvents: fc.option(fc.integer({ min: 1, max: 30 }), { nil: null, freq: 3 }),
  followUpAfterEvents: fc.option(fc.integer({ min: 1, max: 30 }), { nil: null, freq: 3 }),
  step: fc.constantFrom('direct', 'sdk'),
  turns,
});
