import type { LanguageModelV4CallOptions, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { MockLanguageModelV4 } from 'ai/test';

/** One scripted model response for MockLanguageModelV4-based tests. */
export interface MockTurn {
  text?: string[];
  reasoning?: string[];
  toolCalls?: Array<{ id?: string; name: string; input: unknown }>;
  finishReason?: 'stop' | 'length' | 'content-filter' | 'tool-calls' | 'error' | 'interrupted' | 'other';
  usage?: { input: number; output: number };
  /** Emits an error part after the text instead of finishing. */
  errorPart?: unknown;
  /** `doStream` rejects with this error. */
  reject?: unknown;
  /** After emitting the first `holdAfter` parts, waits until aborted. */
  holdAfter?: number;
  /** Before the first part, waits until aborted. */
  holdBeforeFirst?: boolean;
}

let idCounter = 0;

export function turnParts(turn: MockTurn): LanguageModelV4StreamPart[] {
  const parts: LanguageModelV4StreamPart[] = [{ type: 'stream-start', warnings: [] }];
  if (turn.reasoning?.length) {
    parts.push({ type: 'reasoning-start', id: 'r0' });
    for (const delta of turn.reasoning) parts.push({ type: 'reasoning-delta', id: 'r0', delta });
    parts.push({ type: 'reasoning-end', id: 'r0' });
  }
  if (turn.text?.length) {
    parts.push({ type: 'text-start', id: 't0' });
    for (const delta of turn.text) parts.push({ type: 'text-delta', id: 't0', delta });
    parts.push({ type: 'text-end', id: 't0' });
  }
  for (const call of turn.toolCalls ?? []) {
    parts.push({
      type: 'tool-call',
      toolCallId: call.id ?? `call-${++idCounter}`,
      toolName: call.name,
      input: typeof call.input === 'string' ? call.input : JSON.stringify(call.input),
    });
  }
  if (turn.errorPart !== undefined) {
    parts.push({ type: 'error', error: turn.errorPart });
    return parts;
  }
  const finishReason = turn.finishReason ?? (turn.toolCalls?.length ? 'tool-calls' : 'stop');
  parts.push({
    type: 'finish',
    finishReason: { unified: finishReason, raw: finishReason },
    usage: {
      inputTokens: { total: turn.usage?.input ?? 10, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: turn.usage?.output ?? 5, text: undefined, reasoning: undefined },
    },
  });
  return parts;
}

function abortError(): Error {
  return new DOMException('The operation was aborted.', 'AbortError');
}

/** A pull-based stream over the turn's parts that honours the abort signal and the hold points. */
function streamTurn(turn: MockTurn, signal: AbortSignal | undefined, onHold: () => void): ReadableStream<LanguageModelV4StreamPart> {
  const parts = turnParts(turn);
  let index = 0;
  const waitForAbort = () =>
    new Promise<never>((_, reject) => {
      if (signal?.aborted) return reject(abortError());
      signal?.addEventListener('abort', () => reject(abortError()), { once: true });
    });
  return new ReadableStream({
    async pull(controller) {
      if ((turn.holdBeforeFirst && index === 0) || (turn.holdAfter !== undefined && index === turn.holdAfter)) {
        onHold();
        try {
          await waitForAbort();
        } catch (error) {
          controller.error(error);
          return;
        }
      }
      const part = parts[index++];
      if (part === undefined) controller.close();
      else controller.enqueue(part);
    },
  });
}

/**
 * A MockLanguageModelV4 that answers each call with the next turn; it records the prompts it was sent.
 * `untilHeld()` resolves once a turn has reached its hold point (every part before it has been read),
 * so a test can act then instead of after a guessed delay.
 */
export function mockModel(turns: MockTurn[]) {
  let call = 0;
  let held = false;
  const waiting: Array<() => void> = [];
  const onHold = () => {
    held = true;
    for (const wake of waiting.splice(0)) wake();
  };
  const model = new MockLanguageModelV4({
    doStream: async (options: LanguageModelV4CallOptions) => {
      const turn = turns[call++];
      if (turn === undefined) throw new Error(`mock model: no turn ${call} (the script has ${turns.length})`);
      if (turn.reject !== undefined) throw turn.reject;
      return { stream: streamTurn(turn, options.abortSignal, onHold) };
    },
  });
  const untilHeld = async (): Promise<void> => {
    if (!held) await new Promise<void>((resolve) => waiting.push(resolve));
    // What the step read before the hold is handled in the microtasks that follow; let them run.
    await new Promise((resolve) => setImmediate(resolve));
  };
  return Object.assign(model, { untilHeld });
}
