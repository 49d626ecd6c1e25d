import { z } from 'zod';
import { TRACE_VERSION, type RunTrace } from '../core/run-trace.js';

const time = z.number().finite();
const runError = z.object({ kind: z.string(), message: z.string(), status: z.number().optional(), retryAfterMs: z.number().optional(), retryable: z.boolean().optional() });
const usage = z.object({ inputTokens: z.number(), outputTokens: z.number(), totalTokens: z.number() }).loose();

/** The shape of a `RunTrace`, checked before a report is drawn from a file. Unknown extra fields are allowed. */
const runTraceSchema = z.object({
  version: z.literal(TRACE_VERSION, { error: `expected ${TRACE_VERSION}, the trace version this loopchart reads` }),
  runId: z.string(),
  startedAt: time,
  durationMs: time,
  outcome: z.enum(['completed', 'max-steps', 'doom-loop', 'aborted', 'failed', 'context-limit', 'content-filter', 'timeout', 'denied']),
  error: runError.optional(),
  states: z.array(z.object({ state: z.string(), enteredAt: time, leftAt: time })),
  transitions: z.array(z.object({ from: z.string(), to: z.string(), event: z.string(), guard: z.string().optional(), at: time })),
  steps: z.array(
    z.object({
      step: z.number().int(),
      attempts: z.number().int(),
      startedAt: time,
      firstChunkMs: time.optional(),
      durationMs: time.optional(),
      modelMs: time.optional(),
      modelEndedAt: time.optional(),
      finishReason: z.string().optional(),
      usage,
      text: z.string(),
      reasoning: z.string().optional(),
      toolCalls: z.array(
        z.object({
          toolCallId: z.string(),
          toolName: z.string(),
          input: z.unknown(),
          startedAt: time,
          durationMs: time.optional(),
          isError: z.boolean().optional(),
          outputPreview: z.string().optional(),
        }),
      ),
      streamWarnings: z.array(runError).optional(),
      warnings: z.array(z.object({ type: z.string() }).loose()).optional(),
    }),
  ),
  retries: z.array(z.object({ step: z.number(), attempt: z.number(), delayMs: time, error: runError, at: time })),
  compactions: z.array(
    z.object({
      reason: z.string(),
      kind: z.string().optional(),
      tokensBefore: z.number(),
      tokensAfter: z.number().optional(),
      startedAt: time,
      durationMs: time.optional(),
    }),
  ),
  hooks: z.array(z.object({ hook: z.string(), index: z.number(), step: z.number(), startedAt: time, durationMs: time, ok: z.boolean(), message: z.string().optional() })),
});

/** A value that is not a run trace; `problems` names each field that is wrong. */
export class TraceFormatError extends Error {
  override readonly name = 'TraceFormatError';
  constructor(readonly problems: readonly string[]) {
    super(`not a loopchart run trace:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
  }
}

const MAX_PROBLEMS = 8;

/**
 * Checks that a parsed JSON value is a `RunTrace` (as `loopchart run --trace`
 * writes it) and returns it. A `RunResult` (`loopchart run --json`) is
 * accepted too: its `trace` is used.
 *
 * @example
 * const trace = parseRunTrace(JSON.parse(await readFile('trace.json', 'utf8')));
 * @throws TraceFormatError naming each field that is missing or of the wrong type (the first few).
 */
export function parseRunTrace(value: unknown): RunTrace {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TraceFormatError([`expected a JSON object, got ${Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value}`]);
  }
  const record = value as Record<string, unknown>;
  if (!('version' in record) && 'outcome' in record && 'messages' in record) {
    if (record.trace === undefined) throw new TraceFormatError(['this is a RunResult without a trace (the run ended before it started)']);
    return parseRunTrace(record.trace);
  }
  const parsed = runTraceSchema.safeParse(value);
  if (parsed.success) return parsed.data as RunTrace;
  const problems = parsed.error.issues.map((issue) => `${issue.path.length > 0 ? issue.path.map(String).join('.') : '(top level)'}: ${issue.message}`);
  throw new TraceFormatError(problems.length > MAX_PROBLEMS ? [...problems.slice(0, MAX_PROBLEMS), `… and ${problems.length - MAX_PROBLEMS} more`] : problems);
}
