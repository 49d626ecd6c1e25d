import type { ModelMessage } from 'ai';
import { isDeepStrictEqual } from 'node:util';
import type { AgentEvent } from '../../src/core/events.js';

/**
 * DESIGN invariants 2 and 3 as checks that return what is wrong (empty when
 * all is well), shared by the model-based and the property-based tests.
 */

/** Invariant 2: every tool call has exactly one result, and the result comes after its call. */
export function toolAnswerProblems(messages: readonly ModelMessage[]): string[] {
  const calls = new Map<string, number>();
  const results = new Map<string, number>();
  const problems: string[] = [];
  messages.forEach((message, position) => {
    if (typeof message.content === 'string') return;
    for (const part of message.content) {
      if (part.type === 'tool-call' && message.role === 'assistant' && !part.providerExecuted) {
        if (calls.has(part.toolCallId)) problems.push(`tool call ${part.toolCallId} is made twice`);
        calls.set(part.toolCallId, position);
      } else if (part.type === 'tool-result') {
        const call = calls.get(part.toolCallId);
        if (call === undefined) problems.push(`tool result ${part.toolCallId} (message ${position}) has no call before it`);
        results.set(part.toolCallId, (results.get(part.toolCallId) ?? 0) + 1);
      }
    }
  });
  for (const id of calls.keys()) {
    const count = results.get(id) ?? 0;
    if (count !== 1) problems.push(`tool call ${id} has ${count} results`);
  }
  return problems;
}

/**
 * Invariant 3: what the `message` events reported is the history, in order.
 * Fed every event; a summarised compaction replaces the history, so it
 * restarts from the compacted history it is told about.
 */
export class MessageLedger {
  private expected: ModelMessage[];

  constructor(initial: readonly ModelMessage[]) {
    this.expected = [...initial];
  }

  observe(event: AgentEvent): void {
    if (event.type === 'message') this.expected.push(event.message);
  }

  /** After a summarised compaction: the history is now `messages`. */
  restart(messages: readonly ModelMessage[]): void {
    this.expected = [...messages];
  }

  problems(history: readonly ModelMessage[]): string[] {
    if (isDeepStrictEqual(this.expected, history)) return [];
    const first = firstDifference(this.expected, history);
    return [
      `the history (${history.length} messages) is not what the message events reported (${this.expected.length}); first difference at ${first}: ` +
        `reported ${JSON.stringify(this.expected[first])}, history has ${JSON.stringify(history[first])}`,
    ];
  }
}

function firstDifference(a: readonly unknown[], b: readonly unknown[]): number {
  const length = Math.max(a.length, b.length);
  for (let index = 0; index < length; index++) if (!isDeepStrictEqual(a[index], b[index])) return index;
  return length;
}

/** `start-step` and `finish-step` come in pairs, one step at a time, and a run ends with no step open. */
export class StepLedger {
  private open: number | undefined;
  readonly problems: string[] = [];

  observe(event: AgentEvent): void {
    if (event.type === 'start-step') {
      if (this.open !== undefined) this.problems.push(`step ${this.open} got no finish-step before start-step ${event.step}`);
      this.open = event.step;
    } else if (event.type === 'finish-step') {
      if (this.open !== event.step) this.problems.push(`finish-step ${event.step} while step ${this.open ?? 'none'} is open`);
      this.open = undefined;
    } else if (event.type === 'run-end') {
      if (this.open !== undefined) this.problems.push(`the run ended with step ${this.open} open`);
      this.open = undefined;
    }
  }
}
