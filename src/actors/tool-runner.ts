import { setMaxListeners } from 'node:events';
import { fromCallback } from 'xstate';
import { errorAnswer, toolCrashMessage } from '../core/history.js';
import type { AgentRuntime } from '../core/runtime.js';
import { runToolCall, type ToolCallJob, type ToolCallOutput, type ToolStepScope } from './tool-call.js';

/** What the machine tells the tool runner: run these calls of this step now. */
export type ToolRunnerCommand = { type: 'tools.start'; scope: ToolStepScope; jobs: ToolCallJob[] };

/** What the tool runner reports: one call has its answer. */
export type ToolRunnerEvent = { type: 'tool.answer'; step: number; output: ToolCallOutput };

/**
 * What the tool runner of a run gets: the run it serves, which names it in the inspector. What a
 * call needs (its step, the history) comes with each `tools.start`.
 */
export interface ToolRunnerInput {
  runId: string;
}

/** The step whose calls are being executed: the signal that aborts them, and how many are still open. */
interface StepCalls {
  step: number;
  controller: AbortController;
  open: number;
}

/** The next step's calls: on the signal of the step before when none of its calls is still running (one signal per step costs more than its step's transitions), on a new one otherwise. */
function nextStepCalls(previous: StepCalls | undefined, step: number): StepCalls {
  if (previous !== undefined && previous.open === 0 && !previous.controller.signal.aborted) return { step, controller: previous.controller, open: 0 };
  const controller = new AbortController();
  // Every running call listens to the step's signal: as many listeners as calls is expected, not a leak.
  setMaxListeners(0, controller.signal);
  return { step, controller, open: 0 };
}

/**
 * The tool runner: one actor per run (invoked by `running`, id `tools`) that
 * runs the calls the machine hands it (`tools.start`) and reports each answer
 * (`tool.answer`) as it settles. The machine decides which calls start when
 * (all at once, or one after another, and none once a steering message
 * waits); the runner only executes. `toolExec` is left only once every call
 * has its answer, or with the run (a stop): stopping the runner aborts every
 * call still running, and whatever it answers later is dropped.
 *
 * One actor per run rather than one per step or per call: starting and
 * stopping an invoked child is several transitions' worth of XState's work,
 * and a step's cost should not depend on how many calls it makes.
 *
 * @example
 * ```ts
 * // agentImplementations({ model, tools }).actors.tools is this actor, bound to the tools.
 * const runner = createToolRunner(runtime);
 * ```
 */
export function createToolRunner(runtime: AgentRuntime) {
  return fromCallback<ToolRunnerCommand, ToolRunnerInput, ToolRunnerEvent>(({ receive, sendBack, self }) => {
    let current: StepCalls | undefined;
    /** The last step whose calls all answered: its signal, never aborted, serves the next step. */
    let answered: StepCalls | undefined;
    const end = () => {
      // A step whose calls all answered has nothing to abort (an abort costs a DOMException per step).
      if (current !== undefined && current.open > 0) current.controller.abort();
      else answered = current;
      current = undefined;
    };
    const stepFor = (step: number): StepCalls => {
      if (current?.step === step) return current;
      end();
      current = nextStepCalls(answered, step);
      answered = undefined;
      return current;
    };
    receive((command) => {
      // Where the agent has no session, a sub-agent's session chart is a child of this runner: its end (`xstate.done.actor.…`) reaches here too, and is no command.
      if (command.type !== 'tools.start') return;
      const { scope } = command;
      const calls = stepFor(scope.step);
      const settle = (output: ToolCallOutput) => {
        calls.open--;
        if (current === calls) sendBack({ type: 'tool.answer', step: scope.step, output });
      };
      for (const job of command.jobs) {
        calls.open++;
        runToolCall(runtime, scope, job, calls.controller.signal, self).then(settle, (error: unknown) => {
          const message = toolCrashMessage(job.call.toolName, error);
          settle({ index: job.index, answer: errorAnswer(job.call, message), output: message, isError: true, durationMs: 0 });
        });
      }
    });
    return end;
  });
}
