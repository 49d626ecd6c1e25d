import { setMaxListeners } from 'node:events';
import { fromCallback } from 'xstate';
import { errorAnswer, toolCrashMessage } from '../machines/history.js';
import type { AgentRuntime } from '../runtime.js';
import { runToolCall, type ToolCallJob, type ToolCallOutput, type ToolStepScope } from './tool-call.js';

/**
 * What the machine tells the tool runner: run these calls of this step now (`tools.start`), or the
 * step is over (`tools.end`: calls still running are aborted, and their answers are not reported).
 */
export type ToolRunnerCommand = { type: 'tools.start'; scope: ToolStepScope; jobs: ToolCallJob[] } | { type: 'tools.end' };

/** What the tool runner reports: one call has its answer. */
export type ToolRunnerEvent = { type: 'tool.answer'; step: number; output: ToolCallOutput };

/** What the tool runner of a run gets. */
export interface ToolRunnerInput {
  runId: string;
}

/** The calls of the step being executed, and the signal that aborts them when it ends. */
interface RunningStep {
  step: number;
  controller: AbortController;
  running: number;
}

/**
 * The tool runner: one actor per run (invoked by `running`, id `tools`) that
 * runs the calls the machine hands it (`tools.start`) and reports each answer
 * (`tool.answer`) as it settles. The machine decides which calls start when
 * (all at once, or one after another, and none once a steering message
 * waits); the runner only executes. When the step ends (`tools.end`, sent as
 * `toolExec` is left for any reason), calls still running are aborted and
 * whatever they answer later is dropped; stopping the runner (the run ends)
 * does the same.
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
    let current: RunningStep | undefined;
    const end = () => {
      // A step whose calls all answered has nothing to abort (an abort costs a DOMException per step).
      if (current !== undefined && current.running > 0) current.controller.abort();
      current = undefined;
    };
    const stepFor = (step: number): RunningStep => {
      if (current?.step === step) return current;
      end();
      const controller = new AbortController();
      // Every running call listens to the step's signal: as many listeners as calls is expected, not a leak.
      setMaxListeners(0, controller.signal);
      current = { step, controller, running: 0 };
      return current;
    };
    receive((command) => {
      if (command.type === 'tools.end') return end();
      const { scope } = command;
      const running = stepFor(scope.step);
      const settle = (output: ToolCallOutput) => {
        running.running--;
        if (current === running) sendBack({ type: 'tool.answer', step: scope.step, output });
      };
      for (const job of command.jobs) {
        running.running++;
        runToolCall(runtime, scope, job, running.controller.signal, self).then(settle, (error: unknown) => {
          const message = toolCrashMessage(job.call.toolName, error);
          settle({ index: job.index, answer: errorAnswer(job.call, message), output: message, isError: true, durationMs: 0 });
        });
      }
    });
    return end;
  });
}
