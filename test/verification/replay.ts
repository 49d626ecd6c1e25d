import type { ModelMessage } from 'ai';
import { getAdjacencyMap } from '@xstate/graph';
import { isDeepStrictEqual } from 'node:util';
import { createActor, type AnyStateMachine } from 'xstate';
import type { AgentEvent } from '../../src/core/events.js';
import type { AgentMachineEvent } from '../../src/machine/agent-setup.js';
import type { AgentContext } from '../../src/machine/context.js';
import type { Outcome } from '../../src/core/result.js';
import { abstractKey, modelConfigs, modelEvents, type AgentSnapshot, type ModelConfigName } from './agent-model.js';
import type { CoverageRecorder } from './coverage.js';
import { MessageLedger, StepLedger, toolAnswerProblems } from './invariants.js';
import { expectedVerdict } from './oracle.js';
import { stubbedAgentMachine, type StubbedAgentMachine } from './stub-machine.js';

/** One step of a generated path: the event and the snapshot the model predicts after it. */
export interface PathStep {
  event: AgentMachineEvent;
  state: AgentSnapshot;
}

export interface ModelPath {
  config: ModelConfigName;
  steps: PathStep[];
}

export interface TestModelPaths {
  paths: ModelPath[];
  /** Abstract states and transitions of the traversal. */
  states: number;
  transitions: number;
}

/**
 * The test model's graph, from `@xstate/graph`'s `getAdjacencyMap` over the
 * stubbed machine, keyed by `abstractKey` and driven by `modelEvents`. One
 * path per abstract transition: the BFS path to its source, then the
 * transition. BFS paths follow the edges that produced each state's
 * representative snapshot, so replaying a path reaches exactly the snapshots
 * the model computed (up to ids and clocks).
 */
export function testModelPaths(config: ModelConfigName): TestModelPaths {
  // The machine's emitted-event type does not fit @xstate/graph's generics: traverse it as any machine.
  const adjacency = getAdjacencyMap(stubbedAgentMachine as AnyStateMachine, {
    input: { config: modelConfigs[config] },
    events: (state) => modelEvents(state as AgentSnapshot),
    serializeState: (state) => abstractKey(state as AgentSnapshot),
  }) as unknown as Record<string, { state: AgentSnapshot; transitions: Record<string, PathStep> }>;
  const keys = Object.keys(adjacency);
  const initial = keys[0]!;
  const parents = new Map<string, { from: string; step: PathStep }>();
  const queue = [initial];
  const reached = new Set(queue);
  while (queue.length > 0) {
    const from = queue.shift()!;
    for (const step of Object.values(adjacency[from]!.transitions)) {
      const to = abstractKey(step.state);
      if (reached.has(to) || adjacency[to]?.state !== step.state) continue;
      reached.add(to);
      parents.set(to, { from, step });
      queue.push(to);
    }
  }
  const prefixes = new Map<string, PathStep[]>([[initial, []]]);
  const prefixOf = (key: string): PathStep[] => {
    const known = prefixes.get(key);
    if (known) return known;
    const parent = parents.get(key);
    if (!parent) throw new Error(`the model state ${key} is not reachable along representative edges`);
    const prefix = [...prefixOf(parent.from), parent.step];
    prefixes.set(key, prefix);
    return prefix;
  };
  const paths: ModelPath[] = [];
  let transitions = 0;
  for (const key of keys) {
    for (const step of Object.values(adjacency[key]!.transitions)) {
      transitions++;
      const to = abstractKey(step.state);
      // A BFS edge into a state with transitions of its own is a prefix of that state's paths.
      if (parents.get(to)?.step === step && Object.keys(adjacency[to]!.transitions).length > 0) continue;
      paths.push({ config, steps: [...prefixOf(key), step] });
    }
  }
  return { paths, states: keys.length, transitions };
}

/** A short, readable name for an event in a failure report. */
export function describeEvent(event: AgentMachineEvent): string {
  switch (event.type) {
    case 'llm.finish':
      return `llm.finish(${event.finishReason}, ${event.toolCalls.map((call) => call.toolName).join('+') || 'no calls'})`;
    case 'llm.aborted':
      return `llm.aborted(${event.toolCalls.length} calls${event.message ? '' : ', nothing streamed'})`;
    case 'llm.error':
      return `llm.error(${event.error.kind})`;
    case 'agent.approve':
    case 'agent.deny':
      return `${event.type}(${event.toolCallId})`;
    default:
      break;
  }
  if (event.type === 'xstate.done.actor.approval') {
    const verdicts = (event as { output: Array<{ decision: string; reason: string }> }).output;
    return `${event.type}(${verdicts.map((verdict) => `${verdict.decision}/${verdict.reason}`).join(',')})`;
  }
  if (event.type === 'xstate.done.actor.compaction') return `${event.type}(${(event as { output: { kind: string } }).output.kind})`;
  return event.type;
}

/** The context without what differs between two replays of the same path: ids, clocks, random delays. */
export function comparableContext(context: AgentContext): unknown {
  if (!context.run) return context;
  const { id: _id, startedAt: _startedAt, deadline: _deadline, approvalDeadline: _approvalDeadline, retry, ...run } = context.run;
  return { ...context, run: { ...run, ...(retry ? { retry: { attempt: retry.attempt } } : {}) } };
}

/** The checks a replay makes; `problems` are grouped by them. */
export type CheckName =
  | 'crash'
  | 'model'
  | 'run-end'
  | 'outcome'
  | 'tool-results'
  | 'messages'
  | 'result'
  | 'llm-calls'
  | 'max-steps'
  | 'step-events';

export interface Problem {
  check: CheckName;
  config: ModelConfigName;
  path: string;
  message: string;
}

export interface RunEndRecord {
  outcome: Outcome;
  messages: ModelMessage[];
}

export interface ReplayLog {
  problems: Problem[];
  runEnds: RunEndRecord[];
  sends: number;
}

export interface Replayed {
  /** The last snapshot, before the actor was stopped. */
  snapshot: AgentSnapshot;
  /** Every event the machine emitted, in order. */
  events: AgentEvent[];
}

/**
 * Replays `path` on a real actor of `machine` (the stubbed machine, or a
 * mutant of it), sending each event and checking, after each: the state and
 * context the model predicted, the oracle's verdict, one `run-end` per run,
 * and invariants 1–3.
 */
export function replayPath(path: ModelPath, recorder: CoverageRecorder, log: ReplayLog, machine: StubbedAgentMachine = stubbedAgentMachine): Replayed {
  const config = modelConfigs[path.config];
  const actor = createActor(machine, { input: { config }, inspect: recorder.inspect });
  const emitted: AgentEvent[] = [];
  const all: AgentEvent[] = [];
  actor.on('*', (event) => {
    emitted.push(event);
    all.push(event);
  });
  actor.start();
  recorder.noteState(actor.getSnapshot().value);
  recorder.drain();

  const messages = new MessageLedger(actor.getSnapshot().context.messages.slice());
  const stepEvents = new StepLedger();
  let run = { llmCalls: 0, retries: 0, compactions: 0 };
  const described: string[] = [];
  const problem = (check: CheckName, message: string) =>
    log.problems.push({ check, config: path.config, path: described.join(' → '), message });

  try {
    for (const { event, state: predicted } of path.steps) {
      const before = actor.getSnapshot();
      const verdict = expectedVerdict(before, event);
      described.push(describeEvent(event));
      emitted.length = 0;
      actor.send(event);
      log.sends++;
      const after = actor.getSnapshot();
      if (after.status !== 'active') {
        problem('crash', `the actor is ${after.status}: ${String(after.error)}`);
        break;
      }

      if (!isDeepStrictEqual(after.value, predicted.value) || abstractKey(after) !== abstractKey(predicted)) {
        problem('model', `the machine is in ${abstractKey(after)}, the model predicted ${abstractKey(predicted)}`);
      } else if (!isDeepStrictEqual(comparableContext(after.context), comparableContext(predicted.context))) {
        problem('model', 'the context differs from the one the model computed');
      }

      run.llmCalls += recorder.drain().filter((transition) => transition.endsWith('--> running.llm')).length;
      for (const emittedEvent of emitted) {
        messages.observe(emittedEvent);
        stepEvents.observe(emittedEvent);
        if (emittedEvent.type === 'retry') run.retries++;
        if (emittedEvent.type === 'compaction-start') run.compactions++;
        if (emittedEvent.type === 'compaction-end' && emittedEvent.kind === 'summarised' && event.type === 'xstate.done.actor.compaction') {
          messages.restart((event as { output: { messages: ModelMessage[] } }).output.messages);
        }
      }
      for (const message of messages.problems(after.context.messages.slice())) problem('messages', message);

      const runEnds = emitted.filter((emittedEvent) => emittedEvent.type === 'run-end');
      const endedNow = before.context.run !== undefined && after.context.run === undefined;
      if (runEnds.length !== (endedNow ? 1 : 0)) {
        problem('run-end', `${runEnds.length} run-end events, ${endedNow ? 'the run ended' : 'no run ended'}`);
      }
      if ((after.context.run === undefined) !== after.matches('idle')) {
        problem('run-end', `the run is ${after.context.run ? 'active' : 'over'} in ${JSON.stringify(after.value)}`);
      }

      if (verdict !== undefined) {
        const outcome = runEnds[0]?.result.outcome;
        if (verdict.ends !== endedNow || (verdict.ends && verdict.outcome !== outcome)) {
          problem('outcome', `expected ${verdict.ends ? `the run to end ${verdict.outcome}` : 'the run to go on'}, got ${outcome ?? 'no run-end'}`);
        } else if (verdict.ends && verdict.errorKind !== undefined && runEnds[0]?.result.error?.kind !== verdict.errorKind) {
          problem('outcome', `expected error kind ${verdict.errorKind}, got ${runEnds[0]?.result.error?.kind ?? 'no error'}`);
        }
      }

      const end = runEnds[0];
      if (end) {
        const { result } = end;
        for (const message of toolAnswerProblems(after.context.messages.slice())) problem('tool-results', message);
        if (!isDeepStrictEqual(result.messages, after.context.messages.slice())) problem('result', 'result.messages is not the history');
        if (result.outcome === 'failed' && result.error === undefined) problem('result', 'a failed run has no error');
        const bound = config.maxSteps + run.retries + run.compactions;
        if (run.llmCalls > bound) {
          problem('llm-calls', `${run.llmCalls} LLM calls > maxSteps ${config.maxSteps} + ${run.retries} retries + ${run.compactions} compactions`);
        }
        if (result.stepCount > config.maxSteps) problem('max-steps', `result.stepCount is ${result.stepCount} with maxSteps ${config.maxSteps}`);
        log.runEnds.push({ outcome: result.outcome, messages: result.messages });
        run = { llmCalls: 0, retries: 0, compactions: 0 };
      }
    }
    for (const message of stepEvents.problems) problem('step-events', message);
    return { snapshot: actor.getSnapshot(), events: all };
  } finally {
    actor.stop();
  }
}
