import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { createAgent } from '../src/index.js';
import { mockModel } from './support/mock-model.js';
import { eventTypes, recordEvents } from './support/record.js';
import { addTool } from './support/tools.js';
import { usageFrom } from '../src/core/usage.js';

describe('events$', () => {
  it('delivers every text delta in order, and result.text equals the last step’s text', async () => {
    const deltas = Array.from({ length: 500 }, (_, i) => `d${i} `);
    const model = mockModel([{ text: ['thinking '], toolCalls: [{ name: 'add', input: { a: 1, b: 1 } }] }, { text: deltas }]);
    const agent = createAgent({ model, tools: { add: addTool } });
    const events = recordEvents(agent);
    const result = await agent.run('go');

    const lastStepDeltas = events.flatMap((event) => (event.type === 'text-delta' && event.step === 2 ? [event.text] : []));
    expect(lastStepDeltas).toEqual(deltas);
    expect(result.text).toBe(deltas.join(''));
  });

  it('reports the run in a fixed order of events', async () => {
    const model = mockModel([{ reasoning: ['hmm'], text: ['a'], toolCalls: [{ name: 'add', input: { a: 1, b: 1 } }] }, { text: ['b'] }]);
    const agent = createAgent({ model, tools: { add: addTool } });
    const events = recordEvents(agent);
    await agent.run('go');
    expect(eventTypes(events)).toEqual([
      'run-start',
      'message',
      'start-step',
      'model-call-start',
      'reasoning-delta',
      'text-delta',
      'tool-input-available',
      'message',
      'tool-call',
      'tool-execution-start',
      'tool-result',
      'message',
      'finish-step',
      'start-step',
      'model-call-start',
      'text-delta',
      'message',
      'finish-step',
      'trace',
      'run-end',
    ]);
  });

  it('reports exactly the messages that enter the history (invariant 3)', async () => {
    const model = mockModel([
      { text: ['x'], toolCalls: [{ name: 'add', input: { a: 1, b: 1 } }, { name: 'add', input: { a: 2, b: 2 } }] },
      { toolCalls: [{ name: 'nope', input: {} }] },
      { text: ['y'] },
    ]);
    const initial: ModelMessage[] = [{ role: 'user', content: 'before' }];
    const agent = createAgent({ model, tools: { add: addTool }, messages: initial });
    const events = recordEvents(agent);
    const result = await agent.run('go');
    const reported = events.flatMap((event) => (event.type === 'message' ? [event.message] : []));
    expect(reported).toEqual(result.messages.slice(initial.length));
  });

  it('tags every event with the run id and step', async () => {
    const agent = createAgent({ model: mockModel([{ text: ['a'] }, { text: ['b'] }]) });
    const events = recordEvents(agent);
    await agent.run('one');
    await agent.run('two');
    const runIds = [...new Set(events.map((event) => ('runId' in event ? event.runId : undefined)))];
    expect(runIds).toHaveLength(2);
    expect(events.filter((event) => event.type === 'start-step').map((event) => 'step' in event && event.step)).toEqual([1, 1]);
  });

  it('finish-step carries the step’s own usage, run-end the sum', async () => {
    const model = mockModel([
      { toolCalls: [{ name: 'add', input: { a: 1, b: 1 } }], usage: { input: 7, output: 3 } },
      { text: ['b'], usage: { input: 20, output: 2 } },
    ]);
    const agent = createAgent({ model, tools: { add: addTool } });
    const events = recordEvents(agent);
    const result = await agent.run('go');
    const stepUsages = events.flatMap((event) => (event.type === 'finish-step' ? [event.usage] : []));
    expect(stepUsages).toEqual([
      usageFrom({ inputTokens: 7, outputTokens: 3 }),
      usageFrom({ inputTokens: 20, outputTokens: 2 }),
    ]);
    expect(result.usage).toEqual(usageFrom({ inputTokens: 27, outputTokens: 5 }));
  });
});
