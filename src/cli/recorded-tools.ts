import { tool, type ToolResultPart, type ToolSet } from 'ai';
import { z } from 'zod';
import type { Script } from './script.js';

/**
 * The tools a script replays instead of running (`toolResults`): one per tool named there, which
 * answers each call with the output recorded for its id, exactly as the model was sent it. A call
 * with no recorded result fails with an error result that says so.
 *
 * @example
 * recordedTools({ 'call-1': { tool: 'weather', output: { type: 'json', value: { celsius: 21 } } } }) // { weather: … }
 */
export function recordedTools(results: Script['toolResults']): ToolSet {
  const names = new Set(Object.values(results ?? {}).map((result) => result.tool));
  return Object.fromEntries(
    [...names].map((name) => [
      name,
      tool({
        description: `Replays what ${name} answered in the recorded session`,
        inputSchema: z.any(),
        execute: async (_input: unknown, { toolCallId }) => {
          const recorded = results?.[toolCallId];
          if (recorded?.tool !== name) throw new Error(`the script has no recorded result of ${name} for call ${toolCallId}`);
          return recorded.output;
        },
        toModelOutput: ({ output }) => output as ToolResultPart['output'],
      }),
    ]),
  );
}
