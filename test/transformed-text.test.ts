import type { AgentEvent } from '../src/core/events.js';
import { describe, expect, it } from 'vitest';
import { TransformedText } from '../src/ai-sdk/transformed-text.js';
import { StepResultRecorder } from '../src/results/step-result-recorder.js';
import { streamBlockId } from '../src/results/stream-block-id.js';

const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };

/** One recorded step: reasoning then text, with its assistant message. */
function recordedStep() {
  const recorder = new StepResultRecorder({});
  const events = [
    { type: 'start-step', runId: 'r', step: 1 },
    { type: 'model-call-start', runId: 'r', step: 1, attempt: 1 },
    { type: 'reasoning-delta', runId: 'r', step: 1, attempt: 1, id: 'a', text: 'hmm' },
    { type: 'text-delta', runId: 'r', step: 1, attempt: 1, id: 'b', text: 'Hello' },
    { type: 'message', runId: 'r', message: { role: 'assistant', content: [{ type: 'reasoning', text: 'hmm' }, { type: 'text', text: 'Hello' }] } },
    { type: 'finish-step', runId: 'r', step: 1, finishReason: 'stop', usage },
  ] as unknown as AgentEvent[];
  for (const event of events) recorder.event(event);
  return recorder;
}

const reasoningId = streamBlockId(1, 1, 'reasoning', 'a');
const textId = streamBlockId(1, 1, 'text', 'b');

/** A TransformedText that was given the agent's own blocks of the step, as the transforms are given them. */
function transformedText(...extraSourceIds: string[]): TransformedText {
  const text = new TransformedText();
  text.source({ type: 'reasoning-start', id: reasoningId });
  text.source({ type: 'text-start', id: textId });
  for (const id of extraSourceIds) text.source({ type: 'text-start', id });
  return text;
}

describe('TransformedText', () => {
  it('gives the recorded steps themselves when the transforms changed no block', () => {
    const recorder = recordedStep();
    const text = transformedText();
    text.observe({ type: 'reasoning-delta', id: reasoningId, text: 'hm' });
    text.observe({ type: 'reasoning-delta', id: reasoningId, text: 'm' });
    text.observe({ type: 'text-delta', id: textId, text: 'Hello' });
    expect(text.rebuild(recorder)).toBe(recorder);
  });

  it('rewrites a block\'s text in the step, its views and its assistant message', () => {
    const recorder = recordedStep();
    const text = transformedText();
    text.observe({ type: 'reasoning-delta', id: reasoningId, text: 'hmm' });
    text.observe({ type: 'text-delta', id: textId, text: 'HELLO' });
    const [step] = text.rebuild(recorder).steps;
    expect({ text: step!.text, reasoningText: step!.reasoningText, messages: step!.response.messages }).toEqual({
      text: 'HELLO',
      reasoningText: 'hmm',
      messages: [{ role: 'assistant', content: [{ type: 'reasoning', text: 'hmm' }, { type: 'text', text: 'HELLO' }] }],
    });
    expect(recorder.steps[0]!.text).toBe('Hello');
  });

  it('leaves out a block the transforms left out, and adds one they made up at the end of its step', () => {
    const recorder = recordedStep();
    const text = transformedText();
    text.observe({ type: 'text-delta', id: textId, text: 'Hello' });
    text.observe({ type: 'text-start', id: 'made-up' });
    text.observe({ type: 'text-delta', id: 'made-up', text: ' (redacted)' });
    text.observe({ type: 'finish-step' } as never);
    const rebuilt = text.rebuild(recorder);
    expect({ text: rebuilt.steps[0]!.text, reasoningText: rebuilt.steps[0]!.reasoningText, responseMessages: rebuilt.responseMessages }).toEqual({
      text: 'Hello (redacted)',
      reasoningText: undefined,
      responseMessages: [{ role: 'assistant', content: [{ type: 'text', text: 'Hello' }, { type: 'text', text: ' (redacted)' }] }],
    });
  });

  it('leaves out a block of the agent\'s own that no step has: the text of an attempt that failed and was tried again', () => {
    const recorder = recordedStep();
    const failedAttempt = streamBlockId(1, 0, 'text', 'b');
    const text = transformedText(failedAttempt);
    text.observe({ type: 'text-delta', id: failedAttempt, text: 'HEL' });
    text.observe({ type: 'reasoning-delta', id: reasoningId, text: 'hmm' });
    text.observe({ type: 'text-delta', id: textId, text: 'HELLO' });
    expect(text.rebuild(recorder).steps.map((step) => step.text)).toEqual(['HELLO']);
  });
});
