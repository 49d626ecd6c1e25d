import { tool } from 'ai';
import { z } from 'zod';
import { createAgent } from 'loopchart';
import { scriptedModel } from 'loopchart/test';

const model = scriptedModel([
  { text: 'Checking the weather.', toolCalls: [{ name: 'weather', input: { city: 'Oslo' } }] },
  { text: 'It is 4 °C in Oslo.' },
]); // or openai.chat('gpt-4o-mini') from '@ai-sdk/openai'
const weather = tool({
  description: 'Current temperature in a city',
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, celsius: 4 }),
});
const agent = createAgent({ model, instructions: 'Answer briefly.', tools: { weather }, maxSteps: 5 });
agent.events$.subscribe((event) => event.type === 'text-delta' && process.stdout.write(event.text));
const result = await agent.run('How warm is it in Oslo?');
console.log(`\n${result.outcome} after ${result.stepCount} steps, ${result.usage.totalTokens} tokens`);
