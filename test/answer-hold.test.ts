import type { TextStreamPart, ToolSet } from 'ai';
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../src/core/events.js';
import { AnswerHold } from '../src/ai-sdk/answer-hold.js';

type Part = TextStreamPart<ToolSet>;
const runId = 'r';
const callStart: AgentEvent = { type: 'model-call-start', runId, step: 1, attempt: 1, warnings: [] };
const delta: AgentEvent = { type: 'text-delta', runId, step: 1, id: 't', text: 'a', attempt: 1 };
const retry = (kind: 'invalid-output' | 'stream'): AgentEvent => ({ type: 'retry', runId, step: 1, attempt: 2, delayMs: 0, error: { kind, message: 'm' } });
const text: Part[] = [{ type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', text: 'a' }];
const end: Part[] = [{ type: 'text-end', id: 't' }];
const startStep = { type: 'start-step', request: {}, warnings: [] } as unknown as Part;

describe('AnswerHold', () => {
  it('holds nothing for an agent without an output', () => {
    const hold = new AnswerHold(false);
    expect(hold.pass(callStart, [startStep])).toEqual([startStep]);
    expect(hold.pass(delta, text)).toEqual(text);
  });

  it("drops a call's text and the ends of its blocks when an invalid-output retry rejects it", () => {
    const hold = new AnswerHold(true);
    expect(hold.pass(callStart, [startStep])).toEqual([startStep]);
    expect(hold.pass(delta, text)).toEqual([]);
    expect(hold.pass(retry('invalid-output'), end)).toEqual([]);
    expect(hold.release()).toEqual([]);
  });

  it('lets the text go, in order, at the first part that is not text: a tool call, the step’s end', () => {
    const hold = new AnswerHold(true);
    hold.pass(callStart, []);
    hold.pass(delta, text);
    const toolInput = { type: 'tool-input-start', id: 'c', toolName: 'add' } as Part;
    expect(hold.pass({ type: 'tool-input-start', runId, step: 1, attempt: 1, toolCallId: 'c', toolName: 'add' }, [...end, toolInput])).toEqual([...text, ...end, toolInput]);
    expect(hold.pass(delta, [{ type: 'text-delta', id: 't2', text: 'b' }])).toEqual([{ type: 'text-delta', id: 't2', text: 'b' }]);
  });

  it('lets the text go on a retry for another reason, and at the end of the stream', () => {
    const hold = new AnswerHold(true);
    hold.pass(callStart, []);
    hold.pass(delta, text);
    expect(hold.pass(retry('stream'), end)).toEqual([...text, ...end]);
    hold.pass(callStart, []);
    hold.pass(delta, text);
    expect(hold.release()).toEqual(text);
  });
});
