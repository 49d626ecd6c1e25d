import type { LanguageModelV4, LanguageModelV4StreamPart, LanguageModelV4Usage } from '@ai-sdk/provider';
import { tool, type LanguageModelUsage, type ModelMessage } from 'ai';
import type { StepFunction, StepPart } from '../src/index.js';
import { MockLanguageModelV4 } from 'ai/test';
import { z } from 'zod';
import { pullStream } from '../src/test/index.js';

export function usage(input: number, output: number): LanguageModelV4Usage {
  return {
    inputTokens: { total: input, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: output, text: undefined, reasoning: undefined },
  };
}

/**
 * A zero-latency model that answers every call with the text "ok" and, unlike
 * `MockLanguageModelV4`, keeps nothing of the calls it was given: for
 * measuring what an agent itself holds over a long session.
 */
export function forgetfulTextModel(): LanguageModelV4 {
  return {
    specificationVersion: 'v4',
    provider: 'bench',
    modelId: 'forgetful',
    supportedUrls: {},
    doGenerate: () => Promise.reject(new Error('forgetfulTextModel only streams')),
    doStream: () => Promise.resolve({ stream: partsStream([
      { type: 'stream-start', warnings: [] },
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: 'ok' },
      { type: 'text-end', id: 't' },
      { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: usage(10, 1) },
    ]) }),
  };
}

/**
 * A zero-latency model for tool loops run again and again: calls go round in cycles of
 * `toolSteps` calls of `echo` (inputs differ, so no doom loop) and one that answers "done". Like
 * {@link forgetfulTextModel} it keeps nothing of the calls (`MockLanguageModelV4` keeps every
 * prompt, which at 10,000 messages of history is the bench's own growing cost).
 */
export function forgetfulToolLoopModel(toolSteps: number): LanguageModelV4 {
  let calls = 0;
  const finish = (reason: 'stop' | 'tool-calls'): LanguageModelV4StreamPart => ({
    type: 'finish',
    finishReason: { unified: reason, raw: reason === 'stop' ? 'stop' : 'tool_calls' },
    usage: usage(10, 5),
  });
  return {
    specificationVersion: 'v4',
    provider: 'bench',
    modelId: 'forgetful-tool-loop',
    supportedUrls: {},
    doGenerate: () => Promise.reject(new Error('forgetfulToolLoopModel only streams')),
    doStream: () => {
      const call = ++calls;
      const answers = call % (toolSteps + 1) === 0;
      return Promise.resolve({
        stream: partsStream(
          answers
            ? [{ type: 'stream-start', warnings: [] }, { type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: 'done' }, { type: 'text-end', id: 't' }, finish('stop')]
            : [{ type: 'stream-start', warnings: [] }, { type: 'tool-call', toolCallId: `call-${call}`, toolName: 'echo', input: JSON.stringify({ n: call }) }, finish('tool-calls')],
        ),
      });
    },
  };
}

/** A zero-latency model whose every call streams `deltas` text deltas from a pull-based stream. */
export function textDeltaModel(deltas: number, delta = 'x'): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    doStream: async () => {
      let index = -2;
      return {
        stream: pullStream<LanguageModelV4StreamPart>(() => {
          index++;
          if (index === -1) return { type: 'stream-start', warnings: [] };
          if (index === 0) return { type: 'text-start', id: '0' };
          if (index <= deltas) return { type: 'text-delta', id: '0', delta };
          if (index === deltas + 1) return { type: 'text-end', id: '0' };
          if (index === deltas + 2) return { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: usage(10, deltas) };
          return undefined;
        }),
      };
    },
  });
}

/** A pull-based stream of exactly these parts. */
export function partsStream(parts: LanguageModelV4StreamPart[]): ReadableStream<LanguageModelV4StreamPart> {
  let index = 0;
  return pullStream(() => parts[index++]);
}

/**
 * A zero-latency model for a tool loop: calls 1..`toolSteps` each stream one
 * call of `toolName` (input `{ "n": <call> }`, so no two steps repeat a call),
 * every later call streams the text "done". Each `doStream` call answers with
 * the parts of `toolCallsPerStep` calls.
 */
export function toolLoopModel(toolSteps: number, { toolName = 'echo', toolCallsPerStep = 1 } = {}): MockLanguageModelV4 {
  let calls = 0;
  return new MockLanguageModelV4({
    doStream: async () => {
      const call = ++calls;
      if (call > toolSteps) {
        return {
          stream: partsStream([
            { type: 'stream-start', warnings: [] },
            { type: 'text-start', id: 't' },
            { type: 'text-delta', id: 't', delta: 'done' },
            { type: 'text-end', id: 't' },
            { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: usage(10, 1) },
          ]),
        };
      }
      const parts: LanguageModelV4StreamPart[] = [{ type: 'stream-start', warnings: [] }];
      for (let i = 0; i < toolCallsPerStep; i++) {
        parts.push({ type: 'tool-call', toolCallId: `call-${call}-${i}`, toolName, input: JSON.stringify({ n: call * 100 + i }) });
      }
      parts.push({ type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: usage(10, 5) });
      return { stream: partsStream(parts) };
    },
  });
}

/**
 * A step with no model behind it, for the same loop as {@link toolLoopModel}:
 * it yields the parts `directStep` would yield for that model's stream, from
 * memory. An agent running it measures the machine alone (actors,
 * transitions, history, tools).
 */
export function modelFreeToolStep(toolSteps: number): StepFunction {
  const stepUsage: LanguageModelUsage = {
    inputTokens: 10,
    inputTokenDetails: { noCacheTokens: undefined, cacheReadTokens: undefined, cacheWriteTokens: undefined },
    outputTokens: 5,
    outputTokenDetails: { textTokens: undefined, reasoningTokens: undefined },
    totalTokens: 15,
  };
  let calls = 0;
  return async function* () {
    const call = ++calls;
    const parts: StepPart[] =
      call > toolSteps
        ? [
            { type: 'text-start', id: 't' },
            { type: 'text-delta', id: 't', text: 'done' },
            { type: 'text-end', id: 't' },
            { type: 'finish', finishReason: 'stop', rawFinishReason: 'stop', usage: stepUsage },
          ]
        : [
            { type: 'tool-call', toolCall: { toolCallId: `call-${call}-0`, toolName: 'echo', input: { n: call * 100 } } },
            { type: 'finish', finishReason: 'tool-calls', rawFinishReason: 'tool_calls', usage: stepUsage },
          ];
    yield* parts;
  };
}

/** A history of `count` alternating user and assistant messages of about 310 characters. */
export function history(count: number): ModelMessage[] {
  return Array.from({ length: count }, (_, i): ModelMessage =>
    i % 2 ? { role: 'assistant', content: `answer ${i} ${'x'.repeat(300)}` } : { role: 'user', content: `question ${i} ${'y'.repeat(300)}` },
  );
}

/** `echo`: returns its input at once. */
export const echoTool = tool({
  description: 'Returns n',
  inputSchema: z.object({ n: z.number() }),
  execute: async ({ n }) => n,
});

/** `sleep`: resolves after `ms` milliseconds (honouring its abort signal). */
export const sleepTool = tool({
  description: 'Waits ms milliseconds',
  inputSchema: z.object({ n: z.number() }),
  execute: async ({ n }, { abortSignal }) => {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, 100);
      abortSignal?.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(new Error('aborted'));
      });
    });
    return n;
  },
});

/** Milliseconds of every measured round, per contestant, in round order. */
export type Rounds<K extends string> = Record<K, number[]>;

export interface RoundOptions {
  /** Unmeasured rounds first. Default 1. */
  warmup?: number;
  /** Runs of a contestant per round, one after another. Default 3. */
  runsPerBlock?: number;
}

/**
 * Runs every contestant in every round, rotating who goes first, and records
 * per round the median of a block of consecutive runs of that contestant. The
 * block's first run is not counted: it pays for the garbage the previous
 * contestant left behind, so that each contestant is measured with its own GC
 * cost and not its neighbour's. Contestants of one round run close together
 * and share the machine's conditions of that moment: compare them with
 * {@link pairedRatio}.
 */
export async function measureRounds<K extends string>(
  rounds: number,
  contestants: Record<K, () => Promise<unknown>>,
  { warmup = 1, runsPerBlock = 3 }: RoundOptions = {},
): Promise<Rounds<K>> {
  const entries = Object.entries(contestants) as Array<[K, () => Promise<unknown>]>;
  const times = {} as Rounds<K>;
  for (const [name] of entries) times[name] = [];
  for (let round = 0; round < warmup + rounds; round++) {
    for (let i = 0; i < entries.length; i++) {
      const [name, fn] = entries[(round + i) % entries.length]!;
      const block: number[] = [];
      for (let run = 0; run < runsPerBlock; run++) {
        const started = performance.now();
        await fn();
        if (run > 0 || runsPerBlock === 1) block.push(performance.now() - started);
      }
      if (round >= warmup) times[name].push(median(block));
    }
  }
  return times;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The median over rounds of `a / b` measured in the same round. */
export function pairedRatio(a: readonly number[], b: readonly number[]): number {
  return median(a.map((value, i) => value / b[i]!));
}

/** A result that is not what the benchmark expects: the run measured the wrong thing. */
export class WrongResultError extends Error {
  override readonly name = 'WrongResultError';
}

export function check(condition: boolean, message: string): void {
  if (!condition) throw new WrongResultError(message);
}

/** The number a row is about (the value or the ratio its target judges), for medians and spreads over runs. */
export interface Measure {
  n: number;
  /** `x` for a ratio, otherwise the value's unit (`ms`, `µs`, `KB`, ...). */
  unit: string;
  digits: number;
}

/** A ratio as a {@link Measure}: `times(0.43)` reads 0.43x. */
export const times = (n: number, digits = 2): Measure => ({ n, unit: 'x', digits });

/** A value as a {@link Measure}: `amount(0.276, 'ms', 3)` reads 0.276 ms. */
export const amount = (n: number, unit: string, digits: number): Measure => ({ n, unit, digits });

export function formatMeasure({ n, unit, digits }: Measure): string {
  return unit === 'x' ? `${n.toFixed(digits)}x` : `${n.toFixed(digits)} ${unit}`;
}

export interface Row {
  /** What is measured; the same text in every run (what varies goes in `value` or `ratio`), so runs can be matched by it. */
  figure: string;
  value: string;
  ratio?: string;
  /** The row's own number; over several runs the table shows the run with its median, and its spread. */
  measure?: Measure;
  target?: string;
  /** The target is met when `measure.n` is at most this. */
  max?: number;
  /** A short name under which the summary of the targets lists this row. */
  headline?: string;
}

/** Whether the row meets its target; undefined for rows without one. */
export function isMet(row: Pick<Row, 'measure' | 'max'>): boolean | undefined {
  if (row.max === undefined || row.measure === undefined) return undefined;
  return row.measure.n <= row.max;
}

export const ratio = (value: number, digits = 2): string => `${value.toFixed(digits)}x`;
