import type { Agent } from '../agent.js';
import type { RunResult } from '../core/result.js';

/**
 * Runs a fork on from its checkpoint: a fork made in the middle of a run finishes that run, with
 * `prompt` (if any) sent as a steer message the model sees at its next call; a fork made at a
 * run's end runs `prompt` as a new run. Resolves once the agent is restored and the run started,
 * with the run's result as a promise (which never rejects for loop-level failures).
 *
 * @example
 * import { createAgent, fileStore, forkSession, runOnFork } from 'loopchart';
 *
 * const store = fileStore('.sessions');
 * const forkId = await forkSession({ store, from: 'chat-42', at: 2 });
 * const fork = createAgent({ model, tools, store, sessionId: forkId });
 * const { result } = await runOnFork(fork, 'Use b.ts instead');
 * console.log((await result).outcome);
 * @throws Error when the fork is at a run's end and no prompt is given (there is nothing to run).
 */
export async function runOnFork(agent: Agent, prompt: string | undefined): Promise<{ result: Promise<RunResult> }> {
  await agent.ready();
  if (agent.isRunning) {
    if (prompt !== undefined) agent.steer(prompt);
    const resumed = agent.resume();
    return { result: resumed.then((result) => result ?? failedToResume()) };
  }
  if (prompt === undefined) throw new Error('the fork is at the end of a run: give a message to run on with');
  return { result: agent.run(prompt) };
}

function failedToResume(): never {
  throw new Error('the fork was restored in the middle of a run, but the run did not resume');
}
