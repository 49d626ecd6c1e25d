import { tool, type Tool } from 'ai';
import { z } from 'zod';
import { createChildAgent, type Agent } from '../agent.js';
import type { AgentOptions } from '../options.js';
import type { Outcome, RunError } from '../core/result.js';
import { toolScopeOf } from '../actors/tool-scope.js';

/** What the calling model gets back from a sub-agent. */
export interface SubagentOutput {
  outcome: Outcome;
  text: string;
  error?: RunError;
}

export interface AgentToolOptions {
  /** What the sub-agent does, for the calling model. */
  description: string;
  /** How deep sub-agents may nest (a sub-agent calling a sub-agent, …). Default 3. */
  maxDepth?: number;
}

function isAgent(value: AgentOptions | Agent): value is Agent {
  return typeof (value as Agent).run === 'function' && 'events$' in value;
}

/**
 * Turns an agent into a tool: the calling model gives it a task, it runs to
 * its own outcome, and its outcome and final text become the tool result.
 *
 * Given agent options, each call runs a fresh sub-agent whose actor is a
 * child of the calling agent's session (the inspector shows the hierarchy),
 * which does not close before it; the sub-agent is disposed when it is done.
 * Given an existing agent, calls continue its history, one at a time.
 * Either way: aborting the caller aborts the
 * sub-agent, its events reach the caller's `events$` as `subagent` events
 * tagged with the path of tool calls, and nesting deeper than `maxDepth` is
 * refused with an error result.
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
  const maxDepth = options.maxDepth ?? 3;
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
        const subscription = agent.events$.subscribe((event) => scope?.report(event));
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
