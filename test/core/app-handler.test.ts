import { describe, expect, it } from 'vitest';
import { tolerant } from '../../src/core/app-handler.js';

describe("an app's handler as a seam calls it (tolerant)", () => {
  it('swallows a throw of the handler', () => {
    const call = tolerant((_error: Error) => {
      throw new Error('the handler broke');
    });
    expect(() => call(new Error('a'))).not.toThrow();
  });

  it('swallows the rejection of an async handler too, which would otherwise end the process as an unhandled rejection', async () => {
    const unhandled: unknown[] = [];
    const listener = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', listener);
    try {
      // An async function passes for a handler that returns void (TypeScript allows it; only this lint rule objects).
      // eslint-disable-next-line @typescript-eslint/no-misused-promises
      const onError: (error: Error) => void = async () => {
        throw new Error('the async handler broke');
      };
      tolerant(onError)(new Error('a'));
      // Node tells of an unhandled rejection once the microtasks have run: after this turn.
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', listener);
    }
  });
});
