import type { LanguageModelV4, LanguageModelV4StreamPart, LanguageModelV4Usage } from '@ai-sdk/provider';
import { Output } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, isCostOver, type AgentEvent } from '../../src/index.js';
import { usageCost } from '../../src/cost/usage-cost.js';
import { usageFrom } from '../../src/core/usage.js';
import { scriptedModel, type ScriptTurn } from '../../src/test/index.js';
import { recordEvents } from '../support/record.js';
import { addTool } from '../support/tools.js';
import { streamPartsModel } from '../support/stream-parts-model.js';

/** The scripted model under a priced provider's name and model id. */
function pricedAs(provider: string, modelId: string, turns: readonly ScriptTurn[]): LanguageModelV4 {
  return { ...scriptedModel(turns), provider, modelId };
}

const toolTurn: ScriptTurn = { toolCalls: [{ name: 'add', input: { a: 1, b: 2 } }], usage: { inputTokens: 1000, outputTokens: 100, noCacheTokens: 600, cacheReadTokens: 400 } };
const answerTurn: ScriptTurn = { text: 'It is 3.', usage: { inputTokens: 2000, outputTokens: 50 } };
const firstUsage = usageFrom({ inputTokens: 1000, outputTokens: 100, inputTokenDetails: { noCacheTokens: 600, cacheReadTokens: 400, cacheWriteTokens: undefined } });
const secondUsage = usageFrom({ inputTokens: 2000, outputTokens: 50 });

const stepCosts = (events: AgentEvent[]) => events.flatMap((event) => (event.type === 'finish-step' ? [event.cost] : []));

describe('a priced call whose provider reported no usage', () => {
  const answerWithUsage = (usage: LanguageModelV4Usage) => (): LanguageModelV4StreamPart[] => [
    { type: 'stream-start', warnings: [] },
    { type: 'text-start', id: 't' },
    { type: 'text-delta', id: 't', delta: 'Hi.' },
    { type: 'text-end', id: 't' },
    { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
  ];
  const unreported: LanguageModelV4Usage = {
    inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: undefined, text: undefined, reasoning: undefined },
  };
  const reported: LanguageModelV4Usage = {
    inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 2, text: 2, reasoning: undefined },
  };
  const priced = (usage: LanguageModelV4Usage) => {
    const { model } = streamPartsModel([answerWithUsage(usage)]);
    return Object.assign(model, { provider: 'openai.chat', modelId: 'gpt-4o-mini' });
  };

  it('costs $0 with a warning on its finish-step that says a budget cannot see it; a reported usage gets none', async () => {
    for (const [usage, warned] of [[unreported, true], [reported, false]] as const) {
      const agent = createAgent({ model: priced(usage), stopWhen: isCostOver(0.000001) });
      const events = recordEvents(agent);
      const result = await agent.run('hi');
      const finish = events.find((event) => event.type === 'finish-step');
      const warnings = finish?.type === 'finish-step' ? (finish.warnings ?? []) : [];
      expect(warnings.some((warning) => warning.type === 'other' && warning.message.startsWith('The provider reported no token usage for this call'))).toBe(warned);
      expect(result.outcome).toBe('completed');
      if (warned) expect(result.cost?.total).toBe(0);
    }
  });
});

describe('a priced call whose provider reported usage that does not add up', () => {
  it('warns on its finish-step that it counts as $0 and a budget cannot see it, and says what does not add up', async () => {
    const inconsistent: LanguageModelV4Usage = {
      inputTokens: { total: 1000, noCache: undefined, cacheRead: 2000, cacheWrite: undefined },
      outputTokens: { total: 500, text: 500, reasoning: undefined },
    };
    const { model } = streamPartsModel([
      () => [
        { type: 'stream-start', warnings: [] },
        { type: 'text-start', id: 't' },
        { type: 'text-delta', id: 't', delta: 'Hi.' },
        { type: 'text-end', id: 't' },
        { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: inconsistent },
      ],
    ]);
    const agent = createAgent({ model: Object.assign(model, { provider: 'openai.chat', modelId: 'gpt-4o' }) });
    const events = recordEvents(agent);
    await agent.run('hi');
    const finish = events.find((event) => event.type === 'finish-step');
    const warnings = finish?.type === 'finish-step' ? (finish.warnings ?? []) : [];
    expect(warnings.map((warning) => (warning.type === 'other' ? warning.message : ''))).toContain(
      "The provider's token usage for this call does not add up (cache reads and writes (2000) above the input tokens (1000)): it is kept as reported, and a priced call counts as $0, so a cost budget (isCostOver, --max-cost) does not see it.",
    );
  });
});

describe('cost of a run', () => {
  it('prices each step with its model, cached input included, and sums the steps into the run’s cost', async () => {
    const model = { provider: 'openai.chat', modelId: 'gpt-4o-mini' };
    const agent = createAgent({ model: pricedAs(model.provider, model.modelId, [toolTurn, answerTurn]), tools: { add: addTool } });
    const events = recordEvents(agent);
    const result = await agent.run('1+2?');

    const first = usageCost(model, firstUsage)!;
    const second = usageCost(model, secondUsage)!;
    // $0.15/M input, $0.075/M cached, $0.60/M output
    expect(first.total).toBeCloseTo(600 * 0.15e-6 + 400 * 0.075e-6 + 100 * 0.6e-6, 12);
    expect(stepCosts(events)).toEqual([first, second]);
    expect(result.cost).toEqual({ total: first.total + second.total, input: first.input + second.input, output: first.output + second.output, currency: 'USD' });
    expect(JSON.parse(JSON.stringify(result)).cost).toEqual(result.cost);
  });

  it('prices a step with the model a beforeLLMCall hook put in its place', async () => {
    const haiku = pricedAs('anthropic.messages', 'claude-haiku-4-5', [answerTurn]);
    const agent = createAgent({
      model: pricedAs('openai.chat', 'gpt-4o-mini', [toolTurn]),
      tools: { add: addTool },
      hooks: { beforeLLMCall: [({ step }) => (step === 2 ? { model: haiku } : undefined)] },
    });
    const events = recordEvents(agent);
    const result = await agent.run('1+2?');

    const first = usageCost({ provider: 'openai.chat', modelId: 'gpt-4o-mini' }, firstUsage)!;
    const second = usageCost({ provider: 'anthropic.messages', modelId: 'claude-haiku-4-5' }, secondUsage)!;
    expect(second.total).not.toBeCloseTo(usageCost({ provider: 'openai.chat', modelId: 'gpt-4o-mini' }, secondUsage)!.total, 8);
    expect(stepCosts(events)).toEqual([first, second]);
    expect(result.cost?.total).toBeCloseTo(first.total + second.total, 15);
  });

  it('leaves the run’s cost out, not 0, when one step’s price is unknown', async () => {
    const unpriced = scriptedModel([answerTurn]);
    const agent = createAgent({
      model: pricedAs('openai.chat', 'gpt-4o-mini', [toolTurn]),
      tools: { add: addTool },
      hooks: { beforeLLMCall: [({ step }) => (step === 2 ? { model: unpriced } : undefined)] },
    });
    const events = recordEvents(agent);
    const result = await agent.run('1+2?');

    expect(stepCosts(events)).toEqual([usageCost({ provider: 'openai.chat', modelId: 'gpt-4o-mini' }, firstUsage), undefined]);
    expect(result.outcome).toBe('completed');
    expect(result).not.toHaveProperty('cost');
  });

  it('has no cost for a model without a price', async () => {
    const agent = createAgent({ model: scriptedModel([answerTurn]) });
    const events = recordEvents(agent);
    const result = await agent.run('hi');

    expect(result).not.toHaveProperty('cost');
    expect(events.find((event) => event.type === 'finish-step')).not.toHaveProperty('cost');
  });
});

describe('isCostOver', () => {
  // Each tool turn costs 1,000 input and 100 output tokens of gpt-4o-mini: about $0.00021.
  const toolTurns = (count: number) => Array.from({ length: count }, (_, index) => ({ ...toolTurn, toolCalls: [{ name: 'add', input: { a: index, b: 2 } }] }));

  it('ends the run completed at the first step boundary after the steps cost more than the budget', async () => {
    const perStep = usageCost({ provider: 'openai.chat', modelId: 'gpt-4o-mini' }, firstUsage)!.total;
    const agent = createAgent({ model: pricedAs('openai.chat', 'gpt-4o-mini', toolTurns(10)), tools: { add: addTool }, stopWhen: isCostOver(perStep * 2.5) });
    const result = await agent.run('keep adding');
    expect(result.outcome).toBe('completed');
    expect(result.stepCount).toBe(3);
    expect(result.cost!.total).toBeGreaterThan(perStep * 2.5);
    expect(result.cost!.total).toBeLessThan(perStep * 3.5);
  });

  it('never stops a run whose model has no known price, and rejects a budget that is not one', async () => {
    const agent = createAgent({ model: pricedAs('scripted', 'unpriced', [...toolTurns(3), answerTurn]), tools: { add: addTool }, stopWhen: isCostOver(0) });
    const result = await agent.run('keep adding');
    expect(result).toMatchObject({ outcome: 'completed', stepCount: 4, text: 'It is 3.' });
    expect(result.cost).toBeUndefined();
    expect(() => isCostOver(-1)).toThrow(RangeError);
    expect(() => isCostOver(Number.NaN)).toThrow(/finite number of US dollars/);
  });
});

describe('cost of failed attempts', () => {
  it('an attempt that finished but failed (an answer that missed the output schema) is billed: its cost is in the run’s', async () => {
    const model = { provider: 'openai.chat', modelId: 'gpt-4o-mini' };
    const agent = createAgent({
      model: pricedAs(model.provider, model.modelId, [{ text: 'not json', usage: { inputTokens: 1000, outputTokens: 100 } }, { text: '{"n":3}', usage: { inputTokens: 2000, outputTokens: 50 } }]),
      output: Output.object({ schema: z.object({ n: z.number() }) }),
      retry: { maxAttempts: 2 },
    });
    const result = await agent.run('3?');

    expect(result).toMatchObject({ outcome: 'completed', output: { n: 3 } });
    const expected = usageCost(model, usageFrom({ inputTokens: 1000, outputTokens: 100 }))!.total + usageCost(model, secondUsage)!.total;
    expect(result.cost!.total).toBeCloseTo(expected, 12);
    expect(result.usage).toMatchObject({ inputTokens: 3000, outputTokens: 150 });
  });
});

