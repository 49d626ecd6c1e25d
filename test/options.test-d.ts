import type { z } from 'zod';
import { describe, expectTypeOf, it } from 'vitest';
import type { AgentOptions } from '../src/index.js';
import type { agentOptionsSchema } from '../src/options.js';

// Checked by `tsc` (npm test's typecheck): the zod schema and the AgentOptions type cannot drift apart.
describe('AgentOptions and its zod schema', () => {
  it('name the same options', () => {
    expectTypeOf<keyof z.input<typeof agentOptionsSchema>>().toEqualTypeOf<keyof AgentOptions>();
  });

  it('accept the same values for each option', () => {
    type Parsed = z.output<typeof agentOptionsSchema>;
    expectTypeOf<Parsed['maxSteps']>().toEqualTypeOf<AgentOptions['maxSteps']>();
    expectTypeOf<Parsed['toolExecution']>().toEqualTypeOf<AgentOptions['toolExecution']>();
    expectTypeOf<Parsed['onDeny']>().toEqualTypeOf<AgentOptions['onDeny']>();
    expectTypeOf<Parsed['steeringMode']>().toEqualTypeOf<AgentOptions['steeringMode']>();
    expectTypeOf<Parsed['followUpMode']>().toEqualTypeOf<AgentOptions['followUpMode']>();
    expectTypeOf<Parsed['maxToolCallsPerStep']>().toEqualTypeOf<AgentOptions['maxToolCallsPerStep']>();
    expectTypeOf<Parsed['approvalTimeoutMs']>().toEqualTypeOf<AgentOptions['approvalTimeoutMs']>();
    expectTypeOf<Parsed['sessionId']>().toEqualTypeOf<AgentOptions['sessionId']>();
    expectTypeOf<AgentOptions['timeout']>().toExtend<Parsed['timeout']>();
    expectTypeOf<Parsed['model']>().toEqualTypeOf<AgentOptions['model']>();
    expectTypeOf<Parsed['store']>().toEqualTypeOf<AgentOptions['store']>();
    expectTypeOf<Parsed['step']>().toEqualTypeOf<AgentOptions['step']>();
    expectTypeOf<Parsed['transformPrompt']>().toEqualTypeOf<AgentOptions['transformPrompt']>();
    expectTypeOf<Parsed['transformContext']>().toEqualTypeOf<AgentOptions['transformContext']>();
    expectTypeOf<NonNullable<Parsed['retry']>>().toExtend<NonNullable<AgentOptions['retry']>>();
    expectTypeOf<NonNullable<Parsed['doomLoop']>>().toEqualTypeOf<NonNullable<AgentOptions['doomLoop']>>();
    // Options whose schema is looser than the type (functions checked as functions, messages by shape):
    // every value the type allows passes the schema.
    expectTypeOf<AgentOptions['instructions']>().toExtend<Parsed['instructions']>();
    expectTypeOf<AgentOptions['messages']>().toExtend<Parsed['messages']>();
    expectTypeOf<AgentOptions['tools']>().toExtend<Parsed['tools']>();
    expectTypeOf<AgentOptions['stopWhen']>().toExtend<Parsed['stopWhen']>();
    expectTypeOf<AgentOptions['approval']>().toExtend<Parsed['approval']>();
    expectTypeOf<AgentOptions['hooks']>().toExtend<Parsed['hooks']>();
    expectTypeOf<AgentOptions['truncation']>().toExtend<Parsed['truncation']>();
    expectTypeOf<AgentOptions['compaction']>().toExtend<Parsed['compaction']>();
    expectTypeOf<AgentOptions['inspect']>().toExtend<Parsed['inspect']>();
  });
});
