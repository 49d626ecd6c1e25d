import { setMaxListeners } from 'node:events';
import { fromCallback } from 'xstate';
import { errorMessage } from '../errors/error-message.js';
import { errorAnswer } from '../machines/history.js';
import type { AgentRuntime } from '../runtime.js';
import { runToolCall, type ToolCallJob, type ToolCallOutput, type ToolStepScope } from './tool-call.js';

/** What the machine tells the tool runner: run these calls now. */
export type ToolRunnerCommand = { type: 'tools.start'; jobs: ToolCallJob[] };

/** What the tool runner reports: one call has its answer. */
export type ToolRunnerEvent = { type: 'tool.answer'; step: number; output: ToolCallOutput };

/** The message of a call whose execution threw past every guard (a bug, or a custom runner's crash). */
export function toolCrashMessage(toolName: string, error: unknown): string {
  return `Tool "${toolName}" crashed: ${errorMessage(error)}`;
}

/**
 * The tool runner: one actor per tool step that runs the calls the machine
 * hands it (`tools.start`) and reports each answer (`tool.answer`) as it
 * settles. The machine decides which calls start when (all at once, or one
 * after another, and none once a steering message waits); the runner only
 * executes. Stopping it — the step ends, the run is aborted or times out —
 * aborts every call still running.
 *
 * One actor per step rather than one per call keeps a call's cost constant
 * however many calls a step makes: spawning and stopping a child costs the
 * parent a copy of its children map.
 *
 * @example
 * ```ts
 * // agentImplementations({ model, tools }).actors.tools is this actor, bound to the tools.
 * const runner = createToolRunner(runtime);
 * ```
 */
export function createToolRunner(runtime: AgentRuntime) {
  return fromCallback<ToolRunnerCommand, ToolStepScope, ToolRunnerEvent>(({ input, receive, sendBack, self }) => {
    const controller = new AbortController();
    // Every running call listens to the step's signal: as many listeners as calls is expected, not a leak.
    setMaxListeners(0, controller.signal);
    let running = 0;
    let stopped = false;
    const settle = (job: ToolCallJob, output: ToolCallOutput) => {
      running--;
      if (!stopped) sendBack({ type: 'tool.answer', step: input.step, output });
    };
    receive((command) => {
      for (const job of command.jobs) {
        running++;
        runToolCall(runtime, input, job, controller.signal, self).then(
          (output) => settle(job, output),
          (error: unknown) => {
            const message = toolCrashMessage(job.call.toolName, error);
            settle(job, { index: job.index, answer: errorAnswer(job.call, message), output: message, isError: true, durationMs: 0 });
          },
        );
      }
    });
    return () => {
      stopped = true;
      // A step whose calls all answered has nothing to abort (an abort costs a DOMException per step).
      if (running > 0) controller.abort();
    };
  });
}
