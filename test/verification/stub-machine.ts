import { fromCallback, fromPromise, type EventObject } from 'xstate';
import type { ApprovalActorInput, ApprovalVerdict } from '../../src/actors/approval-actor.js';
import type { DeadlineActorInput } from '../../src/actors/deadline-actor.js';
import type { CompactionActorInput, CompactionActorOutput } from '../../src/actors/compaction-actor.js';
import type { StopConditionActorInput } from '../../src/actors/stop-condition-actor.js';
import type { LlmActorCommand, LlmActorEvent, LlmActorInput } from '../../src/actors/llm-actor.js';
import type { ToolRunnerCommand, ToolRunnerEvent, ToolRunnerInput } from '../../src/actors/tool-runner.js';
import type { PrepareActorEvent, PrepareActorInput } from '../../src/actors/prepare-actor.js';
import { agentMachine } from '../../src/machine/agent-machine.js';

/** A promise actor that never settles: the test sends its done or error event itself. */
function silentPromise<TOutput, TInput>() {
  return fromPromise<TOutput, TInput>(() => new Promise<never>(() => {}));
}

/** A callback actor that never sends anything. */
function silentCallback<TReceived extends EventObject, TInput, TEmitted extends EventObject>() {
  return fromCallback<TReceived, TInput, TEmitted>(() => {});
}

/**
 * `agentMachine` with every actor replaced by a silent stub, so a test drives
 * the machine by sending the actors' events (`llm.finish`,
 * `tool.answer`, `retry.due`, ...) itself.
 */
export const stubbedAgentMachine = agentMachine.provide({
  actors: {
    prepare: silentCallback<EventObject, PrepareActorInput, PrepareActorEvent>(),
    llm: silentCallback<LlmActorCommand, LlmActorInput, LlmActorEvent>(),
    tools: silentCallback<ToolRunnerCommand, ToolRunnerInput, ToolRunnerEvent>(),
    approval: silentPromise<ApprovalVerdict[], ApprovalActorInput>(),
    compaction: silentPromise<CompactionActorOutput, CompactionActorInput>(),
    stopCondition: silentPromise<boolean, StopConditionActorInput>(),
    runDeadline: silentCallback<EventObject, DeadlineActorInput, { type: string }>(),
    retryDeadline: silentCallback<EventObject, DeadlineActorInput, { type: string }>(),
    approvalDeadline: silentCallback<EventObject, DeadlineActorInput, { type: string }>(),
  },
});

export type StubbedAgentMachine = typeof stubbedAgentMachine;
