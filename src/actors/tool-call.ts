import { asSchema, executeTool, safeValidateTypes } from '@ai-sdk/provider-utils';
import type { Tool } from 'ai';
import type { AnyActorRef } from 'xstate';
import { errorMessage } from '../core/error-message.js';
import { errorAnswer, type ToolAnswer } from '../core/history.js';
import type { MessageHistory } from '../core/message-history.js';
import { withLazyMessages } from '../core/lazy-messages.js';
import { callHook } from '../resilience/call-hook.js';
import { truncateToolOutput } from '../resilience/truncate-output.js';
import type { TruncationLimits } from '../tools/truncate.js';
import type { AgentRuntime } from '../core/runtime.js';
import { asSubagentEvent } from './subagent-event.js';
import { withToolScope, type ToolScope } from './tool-scope.js';
import type { StepToolCall } from '../core/step.js';
import { toolModelOutput } from '../model-call/ai-internals.js';

/** What every tool call of one step shares. */
export interface ToolStepScope {
  runId: string;
  step: number;
  /** The history the model saw when it made the calls (the tool and its hooks get it as an array, made if they read it). */
  messages: MessageHistory;
  hookMs?: number;
}

/** One tool call to run, with its own limits. */
export interface ToolCallJob {
  /** Position of the call in its step; answers enter the history in this order. */
  index: number;
  call: StepToolCall;
  /** This tool's time limit (`timeout.toolMs` or its per-tool override). */
  timeoutMs?: number;
  /** What the model sees of the result at most; absent: the whole result. */
  truncation?: TruncationLimits;
}

/** How one tool call ended: what the model sees, and what the `tool-result` event carries. */
export interface ToolCallOutput {
  index: number;
  answer: ToolAnswer;
  /** The tool's full output, or the error message. */
  output: unknown;
  isError: boolean;
  durationMs: number;
}

type Outcome = { output: unknown; isError: boolean };

class ToolTimeoutError extends Error {}

/**
 * Executes one tool call with an abort signal that follows `signal` and the
 * tool's time limit. It never rejects: an unknown tool, invalid input, a block
 * by a `beforeToolCall` hook, a throw or a timeout becomes an error result that
 * the model sees on the next step. `actor` is the actor running the call: a
 * sub-agent started by the tool becomes its child where the agent has no
 * session to hold it (`runtime.subagents`).
 */
export async function runToolCall(
  runtime: AgentRuntime,
  stepScope: ToolStepScope,
  job: ToolCallJob,
  signal: AbortSignal,
  actor: AnyActorRef,
): Promise<ToolCallOutput> {
  // Read from the step's scope and the job as they are: a merged copy of both per call is garbage at once.
  const { call } = job;
  const scope = { runId: stepScope.runId, step: stepScope.step };
  const startedAt = performance.now();

  const tool: Tool | undefined = Object.hasOwn(runtime.tools, call.toolName) ? runtime.tools[call.toolName] : undefined;
  let outcome = await execute(tool);
  // Without afterToolCall hooks there is nothing to wait for: no promise per call.
  if (runtime.hooks.afterToolCall !== undefined && runtime.hooks.afterToolCall.length > 0) outcome = await afterHooks(outcome);

  const modelOutput = outcome.isError
    ? errorAnswer(call, errorText(outcome.output)).output
    : await toolModelOutput({ toolCallId: call.toolCallId, input: call.input, output: outcome.output, tool });
  return {
    index: job.index,
    answer: {
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      output: job.truncation ? truncateToolOutput(modelOutput, job.truncation) : modelOutput,
    },
    output: outcome.output,
    isError: outcome.isError,
    durationMs: performance.now() - startedAt,
  };

  async function execute(found: Tool | undefined): Promise<Outcome> {
    const fail = (message: string): Outcome => ({ output: message, isError: true });
    // The AI SDK's own messages (NoSuchToolError, InvalidToolInputError), as ToolLoopAgent gives them to the model.
    if (call.invalid && call.errorName !== undefined) return fail(`${call.errorName}: ${call.error ?? 'validation failed'}`);
    if (found === undefined) {
      return fail(`AI_NoSuchToolError: Model tried to call unavailable tool '${call.toolName}'. Available tools: ${Object.keys(runtime.tools).join(', ') || 'none'}.`);
    }
    if (call.invalid) return fail(`AI_InvalidToolInputError: Invalid input for tool ${call.toolName}: ${call.error ?? 'validation failed'}`);
    if (found.execute === undefined) return fail(`Tool "${call.toolName}" has no execute function.`);

    let toolInput = call.input;
    const beforeHooks = runtime.hooks.beforeToolCall;
    if (beforeHooks !== undefined) for (const [index, hook] of beforeHooks.entries()) {
      const args = withLazyMessages({ ...scope, toolCall: { ...call, input: toolInput } }, stepScope.messages);
      const decision = await callHook(runtime, scope, 'beforeToolCall', index, (hookSignal) => hook({ ...args, signal: hookSignal }), stepScope.hookMs, signal);
      if (!decision.ok) return fail(`Tool call blocked: a beforeToolCall hook failed (${decision.error}).`);
      if (decision.value && 'block' in decision.value) return fail(`Tool call blocked: ${decision.value.block}`);
      if (decision.value && 'input' in decision.value) {
        const validated = await safeValidateTypes({ value: decision.value.input, schema: asSchema(found.inputSchema) });
        if (!validated.success) return fail(`Tool call blocked: a beforeToolCall hook gave invalid input (${errorMessage(validated.error)}).`);
        toolInput = validated.value;
      }
    }

    if (runtime.admit) {
      try {
        await runtime.admit('tool-call');
      } catch (error) {
        return fail(`Tool call not run: ${errorMessage(error)}`);
      }
    }
    // The run may have been stopped while a hook was pending: an abort listener added now would never fire.
    if (signal.aborted) return fail('Tool call interrupted: the run was stopped before the tool started.');
    const limit = job.timeoutMs;
    // A call with a time limit has a signal of its own (aborted when the limit passes); without one the
    // step's signal is the call's: an AbortController per call costs more than the call itself with a fast tool.
    const controller = limit === undefined ? undefined : new AbortController();
    const abort = () => controller?.abort(signal.reason);
    if (controller) signal.addEventListener('abort', abort, { once: true });
    const callSignal = controller?.signal ?? signal;
    let timer: ReturnType<typeof setTimeout> | undefined;
    runtime.emit({ type: 'tool-execution-start', ...scope, toolCallId: call.toolCallId, toolName: call.toolName, input: toolInput });
    try {
      const callScope: ToolScope = {
        actor: runtime.subagents?.parent() ?? actor,
        hold: (ending) => runtime.subagents?.hold(ending),
        depth: runtime.depth ?? 0,
        toolCallId: call.toolCallId,
        report: (event) => runtime.emit(asSubagentEvent(event, { ...scope, toolCallId: call.toolCallId, toolName: call.toolName })),
        isHeard: () => runtime.isHeard?.() ?? true,
      };
      const execute = async () => {
        let output: unknown;
        const parts = executeTool({
          tool: found as Tool & { execute: NonNullable<Tool['execute']> },
          input: toolInput,
          options: withToolScope(withLazyMessages({ toolCallId: call.toolCallId, abortSignal: callSignal, context: {} as never }, stepScope.messages), callScope),
        });
        for await (const part of parts) {
          if (part.type === 'final') output = part.output;
          else runtime.emit({ type: 'tool-update', ...scope, toolCallId: call.toolCallId, toolName: call.toolName, output: part.output });
        }
        return output;
      };
      const run = runtime.runToolCall ? runtime.runToolCall({ ...scope, toolCallId: call.toolCallId, toolName: call.toolName }, execute) : execute();
      const output =
        limit === undefined
          ? await run
          : await Promise.race([
              run,
              new Promise<never>((_, reject) => {
                timer = setTimeout(() => reject(new ToolTimeoutError()), limit);
              }),
            ]);
      return { output, isError: false };
    } catch (error) {
      if (error instanceof ToolTimeoutError) {
        controller?.abort(new Error('tool timeout'));
        return fail(`Tool "${call.toolName}" timed out after ${job.timeoutMs} ms.`);
      }
      return fail(errorMessage(error));
    } finally {
      if (timer !== undefined) clearTimeout(timer);
      if (controller) signal.removeEventListener('abort', abort);
    }
  }

  async function afterHooks(result: Outcome): Promise<Outcome> {
    let current = result;
    for (const [index, hook] of (runtime.hooks.afterToolCall ?? []).entries()) {
      const args = { ...scope, toolCall: call, result: current };
      const replacement = await callHook(runtime, scope, 'afterToolCall', index, (hookSignal) => hook({ ...args, signal: hookSignal }), stepScope.hookMs, signal);
      if (replacement.ok && replacement.value) {
        current = { output: replacement.value.output, isError: replacement.value.isError ?? current.isError };
      }
    }
    return current;
  }
}

function errorText(output: unknown): string {
  return typeof output === 'string' ? output : (JSON.stringify(output) ?? String(output));
}
