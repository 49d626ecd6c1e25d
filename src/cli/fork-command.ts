import type { ModelMessage } from 'ai';
import { forkSession } from '../persistence/fork-session.js';
import type { CheckpointRecord, SessionStore } from '../persistence/session-store.js';
import { isProviderKeyVariable } from '../secrets/provider-key-variables.js';
import type { ForkArguments } from './args.js';
import { USAGE_ERROR } from './exit-codes.js';
import { redact, type TextSink } from './redact.js';
import { openSessionSource, readSessionOrFail } from './session-source.js';
import { UsageError } from './usage-error.js';

/** The fork to run on from, for `loopchart fork --prompt`. */
export interface ForkToRunOn {
  sessionId: string;
  /** The store the fork is in, and its name for messages. */
  store: SessionStore;
  where: string;
  /** The prompt to start a new run with; absent when it joined the history of the run the fork is in the middle of. */
  prompt?: string;
}

export interface ForkCommandOptions {
  args: ForkArguments;
  env: NodeJS.ProcessEnv;
  stdout: TextSink;
  stderr: TextSink;
  /** Runs on in the fork (`loopchart run`'s machinery) and resolves with its exit code. */
  runOn: (fork: ForkToRunOn) => Promise<number>;
}

/**
 * `loopchart fork`: a new session from a checkpoint of another, through `forkSession`, and with
 * `--prompt` a run on from there. Resolves with the exit code; usage errors (no such session or
 * checkpoint) are said on stderr with exit 2.
 */
export async function forkCommand(options: ForkCommandOptions): Promise<number> {
  const { args, stdout, stderr } = options;
  const secrets = Object.entries(options.env).flatMap(([name, value]) => (value && isProviderKeyVariable(name, undefined) ? [value] : []));
  let source;
  try {
    source = await openSessionSource(args.place, secrets);
  } catch (error) {
    return failed(error, stderr);
  }
  try {
    const log = await readSessionOrFail(source, args.sessionId);
    const checkpoints = log.records.filter((record): record is CheckpointRecord => record.type === 'checkpoint');
    const checkpoint = checkpoints.find((candidate) => candidate.id === args.at);
    if (!checkpoint) {
      const range = checkpoints.length === 0 ? 'it has none' : `it has ${checkpoints.length}: 1 to ${checkpoints.at(-1)!.id}`;
      throw new UsageError(`--at ${args.at}: session ${args.sessionId} has no checkpoint ${args.at} (${range})`);
    }
    const betweenRuns = checkpoint.state === 'idle';
    if (args.prompt !== undefined && checkpoint.state === 'running.awaitingApproval') {
      throw new UsageError(
        `--at ${args.at}: checkpoint ${args.at} waits for approvals (its history ends in tool calls whose results come next), so --prompt cannot join it there; fork at the checkpoint before or after it`,
      );
    }
    const messages: ModelMessage[] = args.prompt !== undefined && !betweenRuns ? [{ role: 'user', content: args.prompt }] : [];
    const sessionId = await forkSession({ store: source.store, from: args.sessionId, at: args.at, ...(messages.length > 0 ? { messages } : {}) });
    const where = 'dir' in args.place ? `--session ${args.place.dir}` : '--pg URL';
    const state = `${checkpoint.state}${checkpoint.runId !== undefined && !betweenRuns ? `, step ${checkpoint.step} of run ${checkpoint.runId}` : ''}`;
    if (args.prompt === undefined) {
      stdout.write(args.json ? `${JSON.stringify({ sessionId, forkedFrom: { sessionId: args.sessionId, checkpoint: args.at }, state: checkpoint.state, messageCount: checkpoint.messageCount })}\n` : `${sessionId}\n`);
      const next = betweenRuns ? `loopchart run "…" ${where} --resume ${sessionId}` : `loopchart run ${where} --resume ${sessionId} --model …`;
      stderr.write(`loopchart: forked ${args.sessionId} at checkpoint ${args.at} (${state}) into ${sessionId}; go on with: ${next}\n`);
      return 0;
    }
    stderr.write(`loopchart: forked ${args.sessionId} at checkpoint ${args.at} (${state}) into ${sessionId}; running on\n`);
    return await options.runOn({ sessionId, store: source.store, where: source.where, ...(betweenRuns ? { prompt: args.prompt } : {}) });
  } catch (error) {
    return failed(error, stderr, secrets);
  } finally {
    await source.close();
  }
}

function failed(error: unknown, stderr: TextSink, secrets: readonly string[] = []): number {
  const message = redact(error instanceof Error ? error.message : String(error), secrets);
  if (error instanceof UsageError) {
    stderr.write(`loopchart: ${message}\nRun loopchart fork --help for usage.\n`);
    return USAGE_ERROR;
  }
  stderr.write(`loopchart: ${message}\n`);
  return 1;
}
