import type { LanguageModel, StopCondition, ToolSet } from 'ai';
import { knownKeys, parseOptions } from '../core/options-check.js';
import { createApprovalActor } from '../actors/approval-actor.js';
import { createCompactionActor } from '../actors/compaction-actor.js';
import { createLlmActor } from '../actors/llm-actor.js';
import type { ApprovalPolicy } from '../approval/approval-policy.js';
import type { ToolApproval } from '../approval/tool-approval.js';
import { defaultStep } from '../model-call/default-step.js';

/** Which step implementation agents use unless given one. */
export { defaultStepName } from '../model-call/default-step.js';
import { createToolRunner } from '../actors/tool-runner.js';
import { createPrepareActor } from '../actors/prepare-actor.js';
import { createStopConditionActor } from '../actors/stop-condition-actor.js';
import type { PromptTransform } from '../context/at-mentions.js';
import type { AgentRuntime } from '../core/runtime.js';

/**
 * The actor implementations that bind an `agentMachine` actor to a model and tools, for
 * `bindImplementations(actor, …)`. `createAgent` does this for you.
 *
 * @example
 * ```ts
 * import { createActor } from 'xstate';
 * import { agentImplementations, agentMachine, bindImplementations } from 'loopchart/machine';
 *
 * const actor = createActor(agentMachine, { input: {} });
 * bindImplementations(actor, agentImplementations({ model, tools, emit: (event) => console.log(event.type) }));
 * ```
 */
export function agentImplementations(runtime: ImplementationParts) {
  // An option of createAgent's given here (maxSteps, instructions) would be ignored: those go in the machine's input.
  parseOptions('agentImplementations', implementationPartsKeys, runtime);
  return implementationsOf(runtime);
}

/** What `agentImplementations` binds: the model, the tools and the runtime's other parts. */
export type ImplementationParts = Partial<
  Pick<AgentRuntime, 'step' | 'emit' | 'isHeard' | 'tools' | 'hooks' | 'transformContext' | 'traceHook' | 'depth' | 'output' | 'runToolCall' | 'admit' | 'prepareStep' | 'runSteps' | 'subagents'>
> &
  Pick<AgentRuntime, 'model'> & {
    approval?: ApprovalPolicy;
    toolApproval?: ToolApproval;
    compactionModel?: LanguageModel;
    transformPrompt?: PromptTransform;
    stopConditions?: ReadonlyArray<StopCondition<ToolSet>>;
  };

const IMPLEMENTATION_PARTS = [
  'model', 'step', 'emit', 'isHeard', 'tools', 'hooks', 'transformContext', 'traceHook', 'depth', 'output', 'runToolCall', 'admit', 'prepareStep', 'runSteps', 'subagents',
  'approval', 'toolApproval', 'compactionModel', 'transformPrompt', 'stopConditions',
] as const satisfies ReadonlyArray<keyof ImplementationParts>;

/** Only unknown parts are refused: each part is the runtime's own, checked where it is used. */
const implementationPartsKeys = knownKeys(IMPLEMENTATION_PARTS);

/** `agentImplementations` without the check of its parts, for the options `createAgent` has validated already. */
export function implementationsOf(runtime: ImplementationParts) {
  const resolved: AgentRuntime = {
    model: runtime.model,
    tools: runtime.tools ?? {},
    step: runtime.step ?? defaultStep,
    hooks: runtime.hooks ?? {},
    emit: runtime.emit ?? (() => {}),
    ...(runtime.isHeard ? { isHeard: runtime.isHeard } : {}),
    ...(runtime.transformContext ? { transformContext: runtime.transformContext } : {}),
    ...(runtime.traceHook ? { traceHook: runtime.traceHook } : {}),
    ...(runtime.depth !== undefined ? { depth: runtime.depth } : {}),
    ...(runtime.output ? { output: runtime.output } : {}),
    ...(runtime.runToolCall ? { runToolCall: runtime.runToolCall } : {}),
    ...(runtime.admit ? { admit: runtime.admit } : {}),
    ...(runtime.prepareStep ? { prepareStep: runtime.prepareStep } : {}),
    ...(runtime.runSteps ? { runSteps: runtime.runSteps } : {}),
    ...(runtime.subagents ? { subagents: runtime.subagents } : {}),
  };
  return {
    actors: {
      prepare: createPrepareActor(runtime.transformPrompt),
      llm: createLlmActor(resolved),
      tools: createToolRunner(resolved),
      approval: createApprovalActor(runtime.approval, { tools: resolved.tools, ...(runtime.toolApproval ? { toolApproval: runtime.toolApproval } : {}) }),
      compaction: createCompactionActor(runtime.compactionModel ?? runtime.model, resolved.step, resolved.transformContext, resolved.admit),
      stopCondition: createStopConditionActor(runtime.stopConditions ?? []),
    },
  };
}
