import { tool, type Tool } from 'ai';
import { z } from 'zod';
import { createChildAgent, type Agent } from '../agent.js';
import { parseAgentOptions, type AgentOptions } from '../options.js';
import type { Outcome, RunError } from '../core/result.js';
import { toolScopeOf } from '../actors/tool-scope.js';
import { warnOfUnheardApproval } from '../unheard-approval.js';
import { parseOptions } from '../core/options-check.js';

/** What the calling model gets back from a sub-agent. */
export interface SubagentOutput {
  outcome: Outcome;
  text: string;
  error?: RunError;
}

export interface AgentToolOptions {
  /** What the sub-agent does, for the calling model. */
  description: string;
  /** How deep sub-agents may nest (a sub-agent calling a sub-agent, …): a whole number 1 or more. Default 3. */
  maxDepth?: number;
}

/** `agentTool`'s options; `maxDepth` has a check of its own, whose message says what it is. */
const agentToolOptionsSchema = z.strictObject({ description: z.string().min(1, 'what the sub-agent does, for the calling model'), maxDepth: z.unknown().optional() });

function isAgent(value: AgentOptions | Agent): value is Agent {
  return typeof (value as Agent).run === 'function' && 'events$' in value;
}

/** Why a sub-agent made from options gets no approval: the reason its model and the caller's events$ see. */
export function unanswerableApprovalReason(toolName: string): string {
  return (
    `Sub-agent tool call ${toolName} denied: it asked for approval, and nobody can answer a sub-agent that agentTool made from options. ` +
    "Allow the tool in the sub-agent's approval policy, or pass agentTool an agent you created and answer with its approve() or deny()."
  );
}

function denyUnanswerable(agent: Agent, toolCallId: string, toolName: string): void {
  // Gone already (the run was aborted, a timeout answered it): nothing waits.
  if (!agent.pendingApprovals.includes(toolCallId)) return;
  try {
    agent.deny(toolCallId, unanswerableApprovalReason(toolName));
  } catch {
    // Answered or ended between the check and the denial: nothing waits any more. (Thrown here, in a microtask, it would end the process.)
  }
}

/**
 * Turns an agent into a tool: the calling model gives it a task, it runs to
 * its own outcome, and its outcome and final text become the tool result.
 *
 * Given agent options, each call runs a fresh sub-agent whose actor is a
 * child of the calling agent's session (the inspector shows the hierarchy),
 * which does not close before it; the sub-agent is disposed when it is done.
 * Given an existing agent, calls continue its history, one at a time.
 * A sub-agent made from options cannot wait for approval (nobody holds it to
 * answer): a call it asks approval for is denied at once, with a reason that
 * says so. Either way: aborting the caller aborts the
 * sub-agent, its events reach the caller's `events$` as `subagent` events
 * tagged with the path of tool calls, and nesting deeper than `maxDepth` is
 * refused with an error result.
 *
 * @throws AgentOptionsError for child options `createAgent` would refuse, and RangeError for a
 * `maxDepth` that is no whole number 1 or more: when the tool is made, not at the model's first call.
 *
 * @example
 * ```ts
 * const researcher = agentTool(
 *   { model, instructions: 'Answer from the docs folder only.', tools: builtinTools({ cwd: 'docs' }) },
 *   { description: 'Looks things up in the docs and answers with a short summary.' },
 * );
 * const lead = createAgent({ model, tools: { researcher } });
 * ```
 */
export function agentTool(child: AgentOptions | Agent, options: AgentToolOptions): Tool<{ task: string }, SubagentOutput> {
  parseOptions('agentTool', agentToolOptionsSchema, options);
  const maxDepth = options.maxDepth ?? 3;
  // Refused now, where the app makes the tool: at the call they would be a tool error only the model reads, and a maxDepth of NaN no limit at all.
  if (!Number.isSafeInteger(maxDepth) || maxDepth < 1) {
    throw new RangeError(`agentTool: maxDepth must be a whole number 1 or more (how deep sub-agents may nest), not ${typeof maxDepth === 'string' ? JSON.stringify(maxDepth) : String(maxDepth)}`);
  }
  if (!isAgent(child)) parseAgentOptions(child);
  /** Calls on one existing agent wait for each other: an agent runs one run at a time. */
  let queue: Promise<unknown> = Promise.resolve();
  const oneAtATime = <T>(run: () => Promise<T>): Promise<T> => {
    const result = queue.then(run, run);
    queue = result.catch(() => undefined);
    return result;
  };
  return tool({
    description: options.description,
    inputSchema: z.object({ task: z.string().min(1).describe('The task for the sub-agent, with everything it needs to know.') }),
    execute: async ({ task }, executionOptions) => {
      const { abortSignal } = executionOptions;
      const scope = toolScopeOf(executionOptions);
      const depth = (scope?.depth ?? 0) + 1;
      if (depth > maxDepth) throw new Error(`Sub-agent not started: sub-agents may nest ${maxDepth} deep (maxDepth) and this one would be at depth ${depth}.`);
      const runOnce = async (agent: Agent, owned: boolean): Promise<SubagentOutput> => {
        const subscription = agent.events$.subscribe((event) => {
          scope?.report(event);
          // Nobody holds a sub-agent made from options to answer it: waiting would hold the caller for ever.
          if (owned && event.type === 'approval-request') queueMicrotask(() => denyUnanswerable(agent, event.toolCallId, event.toolName));
          // An agent of the app's own can be answered, but its events$ is heard here, by this tool, so its own warning is silent: the caller's is what counts.
          if (!owned && scope !== undefined && event.type === 'approval-request') {
            warnOfUnheardApproval(event, scope.isHeard(), agent.actor.getSnapshot().context.config.approvalTimeoutMs);
          }
        });
        const abort = () => agent.abort('the calling agent stopped this tool call');
        abortSignal?.addEventListener('abort', abort, { once: true });
        try {
          if (abortSignal?.aborted) throw new Error('Sub-agent not started: the calling run was stopped.');
          const result = await agent.run(task);
          return { outcome: result.outcome, text: result.text, ...(result.error ? { error: result.error } : {}) };
        } finally {
          abortSignal?.removeEventListener('abort', abort);
          subscription.unsubscribe();
          // The child's session chart ends (its run chart with it): nothing of it stays under the tool runner.
          if (owned) await agent.dispose();
        }
      };
      if (isAgent(child)) return oneAtATime(() => runOnce(child, false));
      const ending = runOnce(createChildAgent(child, { parent: scope?.actor, depth }), true);
      scope?.hold(ending);
      return ending;
    },
  });
}
