import { hasToolCall, isStepCount, tool, type ToolSet } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { createAgent, isCostOver, type Agent, type AgentEvent } from '../src/index.js';

// Checked by `tsc` (npm test's typecheck): tool types flow from createAgent's tools into its events.
const weather = tool({
  description: 'The weather in a city',
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, celsius: 4 }),
});
const shout = tool({ inputSchema: z.object({ text: z.string() }), execute: async ({ text }) => text.toUpperCase() });
const model = new MockLanguageModelV4();

describe('typed tools', () => {
  it('createAgent is generic over its tools, like ToolLoopAgent', () => {
    const agent = createAgent({ model, tools: { weather, shout } });
    expectTypeOf(agent).toEqualTypeOf<Agent<{ weather: typeof weather; shout: typeof shout }>>();
    expectTypeOf(agent.tools.weather).toEqualTypeOf<typeof weather>();
  });

  it('a valid tool-call event narrows on toolName to that tool’s input', () => {
    const agent = createAgent({ model, tools: { weather, shout } });
    agent.events$.subscribe((event) => {
      if (event.type !== 'tool-call' || event.invalid) return;
      if (event.toolName === 'weather') expectTypeOf(event.input).toEqualTypeOf<{ city: string }>();
      if (event.toolName === 'shout') expectTypeOf(event.input).toEqualTypeOf<{ text: string }>();
      expectTypeOf(event.toolName).toEqualTypeOf<'weather' | 'shout'>();
    });
  });

  it('an invalid call keeps an unknown name and input', () => {
    type Call = Extract<AgentEvent<{ weather: typeof weather }>, { type: 'tool-call'; invalid: true }>;
    expectTypeOf<Call['toolName']>().toEqualTypeOf<string>();
    expectTypeOf<Call['input']>().toEqualTypeOf<unknown>();
  });

  it('a successful tool-result event narrows on toolName to that tool’s output; an error result is unknown', () => {
    const agent = createAgent({ model, tools: { weather, shout } });
    agent.events$.subscribe((event) => {
      if (event.type !== 'tool-result') return;
      if (event.isError) {
        expectTypeOf(event.output).toEqualTypeOf<unknown>();
        return;
      }
      if (event.toolName === 'weather') expectTypeOf(event.output).toEqualTypeOf<{ city: string; celsius: number }>();
      if (event.toolName === 'shout') expectTypeOf(event.output).toEqualTypeOf<string>();
    });
  });

  it('untyped tools (a plain ToolSet) give unknown inputs and outputs, as before', () => {
    const tools: ToolSet = { weather };
    const agent = createAgent({ model, tools });
    agent.events$.subscribe((event) => {
      if (event.type === 'tool-call') expectTypeOf(event.input).toEqualTypeOf<unknown>();
      if (event.type === 'tool-result') expectTypeOf(event.output).toEqualTypeOf<unknown>();
    });
  });

  it('stopWhen and per-tool timeouts are checked against the tool names', () => {
    createAgent({ model, tools: { weather }, stopWhen: [hasToolCall('weather'), isStepCount(5)], timeout: { tools: { weatherMs: 1_000 } } });
    createAgent({ model, tools: { weather }, stopWhen: [hasToolCall('weather'), isCostOver(0.5)] });
    createAgent({ model, tools: { weather }, stopWhen: isCostOver(0.5) });
    // @ts-expect-error -- no tool is called "rain"
    createAgent({ model, tools: { weather }, timeout: { tools: { rainMs: 1_000 } } });
  });
});
