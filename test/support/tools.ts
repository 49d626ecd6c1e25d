import { tool } from 'ai';
import { z } from 'zod';

/** `add`: returns a + b at once. */
export const addTool = tool({
  description: 'Adds two numbers',
  inputSchema: z.object({ a: z.number(), b: z.number() }),
  execute: async ({ a, b }) => a + b,
});

/** `fail`: always throws. */
export const failTool = tool({
  description: 'Always fails',
  inputSchema: z.object({}),
  execute: async (): Promise<string> => {
    throw new Error('disk on fire');
  },
});

/** A tool that waits `ms` (honouring its signal) and records start/end order. */
export function sleepTool(log: string[], options: { ignoreSignal?: boolean } = {}) {
  return tool({
    description: 'Sleeps',
    inputSchema: z.object({ ms: z.number(), label: z.string() }),
    execute: async ({ ms, label }, { abortSignal }) => {
      log.push(`start ${label}`);
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, ms);
        if (!options.ignoreSignal) {
          abortSignal?.addEventListener('abort', () => {
            clearTimeout(timer);
            log.push(`aborted ${label}`);
            reject(new Error('aborted'));
          });
        }
      });
      log.push(`end ${label}`);
      return `slept ${label}`;
    },
  });
}
