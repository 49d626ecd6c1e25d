import { describe, expect, it } from 'vitest';
import { ToolLoopAgent, tool, type ModelMessage, type ToolSet } from 'ai';
import { z } from 'zod';
import { createAgent } from '../src/index.js';
import { toAISDKAgent } from '../src/ai-sdk/index.js';
import { call, scriptedModel, text, toolCall } from './conformance/script-model.js';

/** The `messages` a tool's `needsApproval` and a `toolApproval` function are given, by one agent, for the second step's call. */
async function approvalMessages(contestant: 'toolLoop' | 'loopchart', setting: 'needsApproval' | 'toolApproval') {
  const seen: { needsApproval: ModelMessage[][]; toolApproval: ModelMessage[][] } = { needsApproval: [], toolApproval: [] };
  const add = tool({
    description: 'Adds',
    inputSchema: z.object({ a: z.number() }),
    needsApproval: (_input, { messages }) => {
      seen.needsApproval.push(structuredClone(messages));
      return false;
    },
    execute: async ({ a }) => a,
  });
  const tools: ToolSet = { add };
  const toolApproval = ({ messages }: { messages: ModelMessage[] }) => {
    seen.toolApproval.push(structuredClone(messages));
    return undefined;
  };
  const model = scriptedModel([call([...text('t1', 'First.'), ...toolCall('c1', 'add', '{"a":1}')]), call(toolCall('c2', 'add', '{"a":2}')), call(text('t3', 'Done.'))]);
  // With a toolApproval, ToolLoopAgent asks no tool's needsApproval: each setting on its own.
  const settings = setting === 'toolApproval' ? { model, tools, toolApproval } : { model, tools };
  const agent = contestant === 'toolLoop' ? new ToolLoopAgent(settings) : toAISDKAgent(createAgent(settings));
  await (await agent.stream({ prompt: 'Add twice' })).consumeStream();
  return seen;
}

describe("the AI SDK's approval settings", () => {
  it('get the messages the step was sent, without the answer that holds the call, as ToolLoopAgent gives them', async () => {
    for (const setting of ['needsApproval', 'toolApproval'] as const) {
      const toolLoop = await approvalMessages('toolLoop', setting);
      const loopchart = await approvalMessages('loopchart', setting);
      expect(toolLoop[setting]).toHaveLength(2);
      expect(toolLoop[setting][1]!.at(-1)).toMatchObject({ role: 'tool' });
      expect(loopchart).toEqual(toolLoop);
    }
  });
});
