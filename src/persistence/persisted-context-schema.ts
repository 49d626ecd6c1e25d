import { jsonExcerpt } from '../core/json-excerpt.js';
import { z } from 'zod';
import { modelMessageSchema } from './session-record-check.js';

const count = z.number().int().nonnegative();
const ms = z.number().refine(Number.isFinite, 'expected a finite number of ms');
const text = z.string();

/** A tool call of a step: its id and tool name are read; its input is the tool's. */
const stepToolCall = z.looseObject({ toolCallId: text, toolName: text });

/** A token count as loopchart keeps one: each total a number when present (the details are the provider's). */
const usage = z.looseObject({ inputTokens: z.number().optional(), outputTokens: z.number().optional(), totalTokens: z.number().optional() });

/**
 * A run in progress (`RunState`): strict on what the chart reads without checking (its counters,
 * its arrays, the deadlines it re-arms, the step the `deciding` guards read), loose on the rest,
 * which it only passes on (a newer writer may add fields).
 */
const runState = z.looseObject({
  id: text,
  startedAt: ms,
  startIndex: count,
  steps: count,
  toolCalls: count,
  usage,
  stepUsage: usage,
  doomStreaks: z.record(z.string(), z.number()),
  text,
  stepOpen: z.boolean(),
  calls: z.array(stepToolCall),
  answers: z.array(z.looseObject({ toolCallId: text, toolName: text, output: z.unknown() }).nullable()),
  nextCall: count,
  attempt: count,
  compactions: count,
  step: z
    .discriminatedUnion('status', [
      z.looseObject({ status: z.literal('finished'), toolCalls: z.array(stepToolCall) }),
      z.looseObject({ status: z.literal('failed'), error: z.looseObject({ kind: text, message: text }) }),
      z.looseObject({ status: z.literal('aborted') }),
    ])
    .optional(),
  approvals: z.array(z.looseObject({ decision: z.enum(['allow', 'deny', 'ask']), answer: z.enum(['approved', 'denied']).optional(), message: text.optional() })).optional(),
  approvalDeadline: ms.optional(),
  retry: z.looseObject({ attempt: count, delayMs: ms, resumeAt: ms }).optional(),
  deadline: ms.optional(),
  compaction: z.looseObject({ reason: text, tokensBefore: z.number(), step: count.optional() }).optional(),
  prompt: z.array(modelMessageSchema).optional(),
  stepRecords: z.array(z.looseObject({ toolCalls: z.array(z.unknown()) })).optional(),
  toolRunnerCrash: text.optional(),
  stop: z.looseObject({ outcome: text, reason: text, requests: count }).optional(),
});

/**
 * The context a checkpoint's snapshot holds (`AgentContext` without its history, which the
 * message records hold, and whose `config` is not read back: the agent's own replaces it). It
 * accepts every context loopchart has written since sessions exist, and refuses one the run chart
 * would fail on far from the session (a `TypeError` in an action, a run that never ends).
 */
export const persistedContextSchema = z.looseObject({
  prunedToolCallIds: z.array(text),
  queues: z.looseObject({ steering: z.array(modelMessageSchema), followUps: z.array(modelMessageSchema) }),
  usageMark: z.looseObject({ tokens: z.number(), messageCount: count }).optional(),
  run: runState.optional(),
});

/** The context of a checkpoint taken within a run: the chart reads its `run` in every state but `idle`. */
const runningContextSchema = persistedContextSchema.extend({ run: runState });

/**
 * What does not fit {@link persistedContextSchema} in `context` (and, `withinRun`, a context
 * without a run), one line per field at most three (pure):
 * `context.run.calls: Invalid input: expected array, received string (it is "x")`; none when it fits.
 */
export function persistedContextProblems(context: unknown, withinRun: boolean): string[] {
  const parsed = (withinRun ? runningContextSchema : persistedContextSchema).safeParse(context);
  if (parsed.success) return [];
  return parsed.error.issues.slice(0, 3).map((issue) => {
    const found = issue.path.reduce<unknown>((value, key) => (typeof value === 'object' && value !== null ? (value as Record<PropertyKey, unknown>)[key] : undefined), context);
    return `${['context', ...issue.path.map(String)].join('.')}: ${issue.message}${found === undefined ? '' : ` (it is ${jsonExcerpt(found, 60)})`}`;
  });
}
