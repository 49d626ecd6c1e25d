import { ToolLoopAgent, type PrepareStepFunction, type ToolSet } from 'ai';
import { describe, expect, it } from 'vitest';
import { createAgent } from '../src/index.js';
import { toAISDKAgent } from 'loopchart/ai-sdk';
import { mockModel } from './support/mock-model.js';
import { addTool } from './support/tools.js';

const twoSteps = () => [{ toolCalls: [{ id: 'call-1', name: 'add', input: { a: 2, b: 3 } }] }, { text: ['It is 5.'] }];
const tools: ToolSet = { add: addTool };
// The first step may only call add, and must; the second is told to answer.
const prepareStep: PrepareStepFunction<ToolSet> = ({ stepNumber }) =>
  stepNumber === 0 ? { activeTools: ['add'], toolChoice: 'required' } : { instructions: 'Answer now.' };

type StepStart = { instructions: unknown; tools: unknown; toolChoice: unknown; activeTools: unknown; providerOptions: unknown; output: unknown; stepNumber: number };
const seen = (event: StepStart) => ({
  stepNumber: event.stepNumber,
  instructions: event.instructions,
  tools: event.tools,
  toolChoice: event.toolChoice,
  activeTools: event.activeTools,
  providerOptions: event.providerOptions,
  output: event.output,
});

describe('onStepStart', () => {
  it("gets ToolLoopAgent's instructions, tools, toolChoice and activeTools, with prepareStep's for the step", async () => {
    const expected: ReturnType<typeof seen>[] = [];
    const reference = new ToolLoopAgent({ model: mockModel(twoSteps()), tools, instructions: 'Be brief.', prepareStep });
    const sdk = await reference.stream({ prompt: 'What is 2 + 3?', onStepStart: (event) => void expected.push(seen(event)) });
    await sdk.consumeStream();

    const got: ReturnType<typeof seen>[] = [];
    const agent = createAgent({ model: mockModel(twoSteps()), tools, instructions: 'Be brief.', prepareStep });
    await toAISDKAgent(agent).generate({ prompt: 'What is 2 + 3?', onStepStart: (event) => void got.push(seen(event)) });

    expect(expected).toEqual([
      { stepNumber: 0, instructions: 'Be brief.', tools, toolChoice: 'required', activeTools: ['add'], providerOptions: undefined, output: undefined },
      { stepNumber: 1, instructions: 'Answer now.', tools, toolChoice: undefined, activeTools: undefined, providerOptions: undefined, output: undefined },
    ]);
    expect(got).toEqual(expected);
  });
});
