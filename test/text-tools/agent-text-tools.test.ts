import type { LanguageModelV4CallOptions } from '@ai-sdk/provider';
import { tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent } from '../../src/agent.js';
import { expectValidHistory } from '../support/history.js';
import { recordEvents } from '../support/record.js';
import { addTool } from '../support/tools.js';
import { textOnlyModel } from './support.js';

const shoutTool = tool({
  description: 'Returns the text in capitals',
  inputSchema: z.object({ text: z.string() }),
  execute: async ({ text }) => text.toUpperCase(),
});

function chunked(text: string, size: number): string[] {
  const chunks: string[] = [];
  for (let start = 0; start < text.length; start += size) chunks.push(text.slice(start, start + size));
  return chunks;
}

/** All the text of the messages of one role in a call's prompt. */
function promptText(call: LanguageModelV4CallOptions, role: 'system' | 'user' | 'assistant'): string {
  return call.prompt
    .filter((message) => message.role === role)
    .map((message) =>
      typeof message.content === 'string'
        ? message.content
        : message.content.map((part) => ('text' in part && typeof part.text === 'string' ? part.text : `[${part.type}]`)).join(''),
    )
    .join('\n');
}

describe('createAgent with a text-only model through textToolProtocol', () => {
  it('completes a two-tool loop with a valid history, the results reaching the model as protocol text', async () => {
    const { model, inner } = textOnlyModel([
      chunked('I will add first.\n<use_tool><tool_name>add</tool_name><arguments>{"a": 2, "b": 3}</arguments></use_tool>', 5),
      chunked("<use_tool><tool_name>shout</tool_name><arguments>{text: 'five',}</arguments></use_tool>", 3),
      ['2 + 3 = 5, or loudly: FIVE.'],
    ]);
    const agent = createAgent({ model, instructions: 'Answer briefly.', tools: { add: addTool, shout: shoutTool }, maxSteps: 5 });
    const events = recordEvents(agent);

    const result = await agent.run('What is 2 + 3, loudly?');

    expect(result.outcome).toBe('completed');
    expect(result.stepCount).toBe(3);
    expect(result.toolCallCount).toBe(2);
    expect(result.text).toContain('FIVE.');
    await expectValidHistory(result.messages);
    const toolResults = events.flatMap((event) => (event.type === 'tool-result' ? [event] : []));
    expect(toolResults.map((event) => [event.toolName, event.output])).toEqual([
      ['add', 5],
      ['shout', 'FIVE'],
    ]);
    const textDeltas = events.flatMap((event) => (event.type === 'text-delta' ? [event.text] : []));
    expect(textDeltas.join('')).toBe('I will add first.\n2 + 3 = 5, or loudly: FIVE.');

    const secondCall = inner.doStreamCalls[1]!;
    expect(secondCall.tools).toBeUndefined();
    expect(secondCall.toolChoice).toBeUndefined();
    expect(promptText(secondCall, 'system')).toMatch(/^Answer briefly\.\n\n# Tools/);
    expect(promptText(secondCall, 'system')).toContain('### shout\nReturns the text in capitals\nInput schema: {"type":"object"');
    expect(promptText(secondCall, 'assistant')).toBe(
      'I will add first.\n<use_tool><tool_name>add</tool_name><arguments>{"a":2,"b":3}</arguments></use_tool>',
    );
    expect(promptText(secondCall, 'user')).toBe(
      'What is 2 + 3, loudly?\n<tool_result><tool_name>add</tool_name><result>5</result></tool_result>',
    );
    expect(secondCall.prompt.some((message) => message.role === 'tool')).toBe(false);
    expect(promptText(inner.doStreamCalls[2]!, 'user')).toContain('<tool_result><tool_name>shout</tool_name><result>FIVE</result></tool_result>');
  });

  it('sends arguments that cannot be repaired back to the model as an invalid-input error result', async () => {
    const { model, inner } = textOnlyModel([
      ['<use_tool><tool_name>add</tool_name><arguments>{{{ a is 2 }</arguments></use_tool>'],
      ['<use_tool><tool_name>add</tool_name><arguments>{"a": 2, "b": 3}</arguments></use_tool>'],
      ['It is 5.'],
    ]);
    const agent = createAgent({ model, tools: { add: addTool, shout: shoutTool } });

    const result = await agent.run('What is 2 + 3?');

    expect(result.outcome).toBe('completed');
    expect(result.toolCallCount).toBe(2);
    await expectValidHistory(result.messages);
    expect(promptText(inner.doStreamCalls[1]!, 'user')).toMatch(
      /<tool_result><tool_name>add<\/tool_name><error>AI_InvalidToolInputError: Invalid input for tool add: [^<]+<\/error><\/tool_result>$/,
    );
    expect(promptText(inner.doStreamCalls[2]!, 'user')).toContain('<result>5</result>');
  });

  it('runs every block of one answer and returns the results in the order of the blocks', async () => {
    const { model, inner } = textOnlyModel([
      [
        '<use_tool><tool_name>shout</tool_name><arguments>{"text": "one"}</arguments></use_tool>\n' +
          '<use_tool><tool_name>add</tool_name><arguments>{"a": 1, "b": 1}</arguments></use_tool>',
      ],
      ['ONE and 2.'],
    ]);
    const result = await createAgent({ model, tools: { add: addTool, shout: shoutTool } }).run('go');

    expect(result.outcome).toBe('completed');
    await expectValidHistory(result.messages);
    expect(promptText(inner.doStreamCalls[1]!, 'user')).toContain(
      '<tool_result><tool_name>shout</tool_name><result>ONE</result></tool_result>\n' +
        '<tool_result><tool_name>add</tool_name><result>2</result></tool_result>',
    );
  });
});
