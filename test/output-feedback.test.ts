import { NoObjectGeneratedError, Output } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { outputProblem, parseFinalAnswer } from '../src/actors/final-answer.js';
import { withOutputFeedback } from '../src/actors/output-feedback.js';
import { usageFrom } from '../src/core/usage.js';

const weather = Output.object({ schema: z.object({ city: z.string(), celsius: z.number() }) });
const problemOf = async (text: string) => {
  const parsed = await parseFinalAnswer(weather, { text, finishReason: 'stop', usage: usageFrom({ inputTokens: 1, outputTokens: 1 }) }, 'm');
  if (parsed.ok) throw new Error('expected a rejection');
  return parsed.problem;
};

describe('what a rejected answer did wrong, for the model', () => {
  it('names each field the schema refused, with its path', async () => {
    expect(await problemOf('{"city":7,"celsius":"warm"}')).toBe(
      'No object generated: response did not match schema. city: Invalid input: expected string, received number; celsius: Invalid input: expected number, received string',
    );
  });

  it('says why an answer is not JSON', async () => {
    expect(await problemOf('It is warm.')).toMatch(/^No object generated: could not parse the response\. Unexpected token 'I', "It is warm\." is not valid JSON$/);
  });

  it('reads the complaints of a validator that gives them as JSON in its message (the CLI’s schema check)', () => {
    const issues = [{ code: 'invalid_type', path: ['celsius'], message: 'Invalid input: expected number, received string' }];
    const error = new NoObjectGeneratedError({ message: 'No object generated: response did not match schema.', cause: new Error('Type validation failed', { cause: new Error(JSON.stringify(issues)) }) } as never);
    expect(outputProblem(error)).toBe('No object generated: response did not match schema. celsius: Invalid input: expected number, received string');
  });

  it('gives the message alone of an error without a cause, and the cause’s message when it lists nothing', () => {
    expect(outputProblem(new Error('no answer'))).toBe('no answer');
    expect(outputProblem(new Error('outer', { cause: new Error('took too long') }))).toBe('outer took too long');
  });
});

describe('withOutputFeedback', () => {
  const history = [{ role: 'user' as const, content: 'How warm is it?' }];

  it('follows the history with the rejected answer and a request to answer again, leaving the history as it was', () => {
    const messages = withOutputFeedback(history, { text: '{"celsius":"warm"}', problem: 'celsius: expected number' });
    expect(messages.slice()).toEqual([
      history[0],
      { role: 'assistant', content: [{ type: 'text', text: '{"celsius":"warm"}' }] },
      { role: 'user', content: 'Your answer was rejected: it does not have the required output format. celsius: expected number\nAnswer again with only the corrected answer, in the required format.' },
    ]);
    expect(history).toHaveLength(1);
  });

  it('sends no empty assistant message for an empty answer', () => {
    expect([...withOutputFeedback(history, { text: ' ', problem: 'No object generated: could not parse the response.' })].map((message) => message.role)).toEqual(['user', 'user']);
  });
});
