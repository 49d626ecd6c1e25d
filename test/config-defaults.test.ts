import { createActor } from 'xstate';
import { describe, expect, it } from 'vitest';
import { agentMachine } from 'loopchart/machine';
import { createAgent } from 'loopchart';
import { scriptedModel } from 'loopchart/test';
import { withConfigDefaults } from '../src/machine/config-defaults.js';
import { defaultConfig } from '../src/machine/context.js';
import { defaultRetryConfig } from '../src/resilience/retry-policy.js';
import { defaultTruncationConfig } from '../src/resilience/truncate-output.js';
import { defaultCompactionConfig } from '../src/core/compaction-config.js';

describe('withConfigDefaults', () => {
  it('gives every field left out its default, sharing the default objects themselves', () => {
    const config = withConfigDefaults({});
    expect(config).toEqual(defaultConfig);
    expect(config.retry).toBe(defaultRetryConfig);
    expect(config.truncation).toBe(defaultTruncationConfig);
  });

  it('completes retry, truncation and compaction given in part', () => {
    const config = withConfigDefaults({ maxSteps: 4, retry: { maxAttempts: 1 }, truncation: { maxLines: 10 }, compaction: { contextWindow: 100_000 } });
    expect(config.maxSteps).toBe(4);
    expect(config.retry).toEqual({ ...defaultRetryConfig, maxAttempts: 1 });
    expect(config.truncation).toEqual({ ...defaultTruncationConfig, maxLines: 10 });
    expect(config.compaction).toEqual({ ...defaultCompactionConfig, contextWindow: 100_000 });
    expect(withConfigDefaults({ truncation: false, compaction: false })).toMatchObject({ truncation: false, compaction: false });
  });

  it('changes nothing applied a second time', () => {
    const once = withConfigDefaults({ retry: { baseDelayMs: 5 }, compaction: { contextWindow: 50_000, reserveTokens: 1_000 } });
    expect(withConfigDefaults(once)).toEqual(once);
  });
});

describe('the defaults, applied in one place', () => {
  it("an agentMachine actor given part of a compaction config gets the rest, as createAgent's does", () => {
    const actor = createActor(agentMachine, { input: { config: { compaction: { contextWindow: 100_000 }, retry: { maxAttempts: 1 } } } });
    const agent = createAgent({ model: scriptedModel([]), compaction: { contextWindow: 100_000 }, retry: { maxAttempts: 1 } });
    expect(actor.getSnapshot().context.config).toEqual(agent.actor.getSnapshot().context.config);
    expect(actor.getSnapshot().context.config.compaction).toMatchObject({ reserveTokens: defaultCompactionConfig.reserveTokens });
  });
});
