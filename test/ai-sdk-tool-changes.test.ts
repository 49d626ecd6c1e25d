import { describe, expect, it } from 'vitest';
import { ToolLoopAgent, tool, type ModelMessage, type TextStreamPart, type ToolSet } from 'ai';
import { z } from 'zod';
import { createAgent } from '../src/index.js';
import { toAISDKAgent } from '../src/ai-sdk/index.js';
import { call, scriptedModel, text, toolCall } from './conformance/script-model.js';

type Contestant = 'toolLoop' | 'loopchart';

/** A tool the app changes in place between two calls of the same agent. */
function changingTool() {
  return tool({
    title: 'Adder',
    description: 'Adds one number',
    inputSchema: z.object({ a: z.number() }),
    inputExamples: [{ input: { a: 1 } }],
    providerOptions: { openai: { parallelToolCalls: false } },
    execute: async ({ a }) => a,
  });
}

/**
 * Two `stream()` calls of the same agent; between them the app changes the tool object it gave the
 * agent. What the provider was sent for each call's tools, and the titles of the second call's parts.
 */
async function twoCalls(contestant: Contestant) {
  const add = changingTool();
  const model = scriptedModel([call(text('t1', 'One.')), call([...toolCall('c1', 'add', '{"a":2}')]), call(text('t3', 'Two.'))]);
  const tools: ToolSet = { add };
  const agent = contestant === 'toolLoop' ? new ToolLoopAgent({ model, tools }) : toAISDKAgent(createAgent({ model, tools }));
  await (await agent.stream({ prompt: 'first' })).consumeStream();
  add.description = 'Adds two numbers';
  add.title = 'Summer';
  add.inputExamples = [{ input: { a: 2 } }];
  add.providerOptions!.openai!.parallelToolCalls = true;
  add.strict = true;
  const messages: ModelMessage[] = [
    { role: 'user', content: 'first' },
    { role: 'assistant', content: [{ type: 'text', text: 'One.' }] },
    { role: 'user', content: 'second' },
  ];
  const second = await agent.stream({ prompt: messages });
  const parts: TextStreamPart<ToolSet>[] = [];
  for await (const part of second.fullStream) parts.push(part);
  return {
    sent: model.calls.map((options) => options.tools),
    titles: parts.filter((part) => 'title' in part).map((part) => [part.type, (part as { title?: string }).title]),
  };
}

describe('a tool changed in place between two calls', () => {
  it("is sent to the model as it is now, as ToolLoopAgent sends it (description, inputExamples, providerOptions, strict), and its parts carry its new title", async () => {
    const toolLoop = await twoCalls('toolLoop');
    const loopchart = await twoCalls('loopchart');
    expect(toolLoop.sent.at(-1)).toEqual([expect.objectContaining({ description: 'Adds two numbers', strict: true, inputExamples: [{ input: { a: 2 } }], providerOptions: { openai: { parallelToolCalls: true } } })]);
    expect(loopchart.sent).toEqual(toolLoop.sent);
    expect(toolLoop.titles).toContainEqual(['tool-call', 'Summer']);
    expect(loopchart.titles).toEqual(toolLoop.titles);
  });
});
