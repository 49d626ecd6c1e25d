import { ToolLoopAgent, type Agent as AISDKAgent } from 'ai';
import { createAgent, type AgentOptions } from '../../src/index.js';
import { toAISDKAgent } from '../../src/ai-sdk/index.js';
import type { Scenario } from './scenarios.js';
import { scriptedModel } from './script-model.js';

export type ContestantName = 'toolLoop' | 'loopchart';

export interface Contestant {
  agent: AISDKAgent<never, never, never, never>;
  model: ReturnType<typeof scriptedModel>;
}

/**
 * The scenario's agent, built by one contestant: the AI SDK's `ToolLoopAgent`, or loopchart's
 * `createAgent` behind `toAISDKAgent`, given the same settings and a model with the same script.
 * Loopchart's construction may throw (an option it refuses): the observation records that.
 */
export function contestant(name: ContestantName, scenario: Scenario): Contestant {
  const model = scriptedModel(scenario.script);
  const settings = scenario.settings();
  if (name === 'toolLoop') {
    return { model, agent: new ToolLoopAgent({ model, ...settings } as ConstructorParameters<typeof ToolLoopAgent>[0]) as never };
  }
  const agent = createAgent({ model, ...settings } as AgentOptions);
  return { model, agent: toAISDKAgent(agent) as never };
}
