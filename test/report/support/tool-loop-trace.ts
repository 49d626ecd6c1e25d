import { tool } from 'ai';
import { z } from 'zod';
import { createAgent, type RunTrace } from '../../../src/index.js';
import { scriptedModel } from 'loopchart/test';

/** Text no report may let through unescaped: markup that would run script, and URLs. */
export const HOSTILE = `<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2"> see https://evil.example/steal?x=1 and http://evil.example/ '"&`;

/**
 * A real multi-step tool-loop run on the scripted model: a first call that
 * fails with a 503 and is retried, a step with two `lookup` calls, a step whose
 * `explode` call throws, and a final answer. With `hostile`, the tool output,
 * the model text, a tool input and the error message carry {@link HOSTILE}.
 */
export async function toolLoopTrace({ hostile = false }: { hostile?: boolean } = {}): Promise<RunTrace> {
  const extra = hostile ? HOSTILE : 'nothing odd';
  const lookup = tool({
    description: 'Looks a city up',
    inputSchema: z.object({ city: z.string(), note: z.string().optional() }),
    execute: async ({ city }) => ({ city, celsius: 4, remark: extra }),
  });
  const explode = tool({
    description: 'Always fails',
    inputSchema: z.object({}),
    execute: async (): Promise<string> => {
      throw new Error(`exploded: ${extra}`);
    },
  });
  const model = scriptedModel([
    { error: { message: 'Service busy', status: 503 } },
    { text: 'Looking up Oslo and Bergen.', toolCalls: [{ name: 'lookup', input: { city: 'Oslo', note: extra } }, { name: 'lookup', input: { city: 'Bergen' } }] },
    { text: 'One more thing.', toolCalls: [{ name: 'explode', input: {} }] },
    { text: `It is 4 °C in both. ${extra}` },
  ]);
  const agent = createAgent({ model, tools: { lookup, explode }, retry: { baseDelayMs: 1, maxDelayMs: 2 }, hooks: { beforeToolCall: [() => undefined] } });
  const result = await agent.run('How warm is it in Oslo and Bergen?');
  if (!result.trace) throw new Error('the run has no trace');
  return result.trace;
}
