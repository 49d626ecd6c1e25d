import { createAgent, type Agent } from '../agent.js';
import { fileStore } from '../persistence/file-store.js';
import type { SessionStore } from '../persistence/session-store.js';
import { builtinTools, defaultBuiltinToolNames, type BuiltinToolName } from '../tools/index.js';
import type { ForkRequest } from '../playback/fork-request.js';
import { startPlaybackServer, type PlaybackServer } from '../playback/playback-server.js';
import { runOnFork } from '../playback/run-on-fork.js';
import { answerApprovals, approvalMode, PROMPT_APPROVAL_RULES } from './approval.js';
import { USAGE_ERROR } from './exit-codes.js';
import { apiKeyVariable, parseModelSpec, resolveModel, type ModelSpec } from './model.js';
import { cliApprovalPolicy } from './permissions.js';
import { withdrawProviderKeys } from './provider-keys.js';
import { redactingSink, type TextSink } from './redact.js';
import { UsageError } from './usage-error.js';

/** `loopchart open`'s arguments, checked for form. */
export interface OpenArguments {
  sessionId: string;
  /** `--session DIR` (or `LOOPCHART_SESSION_DIR`): a file store. */
  session?: string;
  /** `--pg URL`: a Postgres store. */
  pg?: string;
  /** `--port N`; 0 (default) picks a free one. */
  port: number;
  /** `--inspect`: replay into the Stately inspector instead of the page. */
  inspect: boolean;
  /** The model forks run on, unless the page names another. */
  model?: ModelSpec;
  baseURL?: string;
  apiKeyEnv?: string;
  /** The built-in tools a fork's run has (default all but bash). */
  tools?: BuiltinToolName[];
  /** The forks' workspace (default the current directory). */
  cwd?: string;
  /** `--yes`: a fork's tool calls that ask for approval are approved (else denied). */
  yes: boolean;
  /** `--system TEXT`: the forks' system prompt, unless the page gives one. */
  system?: string;
}

export interface OpenCommandOptions {
  args: OpenArguments;
  env: NodeJS.ProcessEnv;
  stderr: TextSink;
  /** Resolves when the user asks to stop (Ctrl+C): the page's server closes and running forks are aborted. */
  interrupted: Promise<void>;
}

/**
 * `loopchart open`: serves the session's playback page (or, with `--inspect`, replays it into the
 * Stately inspector) until interrupted, and runs the forks the page makes on `--model`. Resolves
 * with the exit code: 0 when stopped, 2 for a usage error or a session that is not there.
 *
 * @example
 * await openCommand({ args: { sessionId: 'chat-42', session: '.sessions', port: 0, inspect: false, yes: false }, env: process.env, stderr: process.stderr, interrupted })
 */
export async function openCommand({ args, env, stderr: rawStderr, interrupted }: OpenCommandOptions): Promise<number> {
  const secrets: string[] = [];
  const stderr = redactingSink(rawStderr, secrets);
  // No fork's tool may inherit a key: every provider key leaves the environment now.
  const keys = withdrawProviderKeys(env, apiKeyVariable(args.model, args.apiKeyEnv));
  secrets.push(...Object.values(keys));
  let opened: { store: SessionStore; close(): Promise<void> } | undefined;
  let server: PlaybackServer | undefined;
  const forks = new Set<Agent>();
  try {
    opened = await openStore(args);
    if (args.inspect) {
      const { replayIntoInspector } = await import('./open-inspect.js');
      return await replayIntoInspector({ store: opened.store, sessionId: args.sessionId, port: args.port, secrets, stderr, interrupted });
    }
    const runFork = async (forkId: string, request: ForkRequest) => {
      const spec = request.model !== undefined ? forkModelSpec(request.model) : args.model;
      if (spec === undefined) throw new Error('no model to run on: name one in the form, or start loopchart open with --model');
      const forkKeys = request.model !== undefined ? { ...keys, ...withdrawProviderKeys(env, apiKeyVariable(spec, args.apiKeyEnv)) } : keys;
      secrets.push(...Object.values(forkKeys));
      const { model } = await resolveModel({
        spec,
        ...(args.baseURL !== undefined ? { baseURL: args.baseURL } : {}),
        ...(args.apiKeyEnv !== undefined ? { apiKeyEnv: args.apiKeyEnv } : {}),
        env: forkKeys,
        processEnv: env,
      });
      const cwd = args.cwd ?? process.cwd();
      const instructions = request.instructions ?? args.system;
      const agent = createAgent({
        model,
        tools: builtinTools({ cwd, tools: [...(args.tools ?? defaultBuiltinToolNames)] }),
        ...(instructions !== undefined ? { instructions } : {}),
        approval: cliApprovalPolicy(PROMPT_APPROVAL_RULES, { allow: [], deny: [], mode: 'ask' }, cwd)!,
        store: opened!.store,
        sessionId: forkId,
      });
      forks.add(agent);
      const stopAnswering = answerApprovals({
        agent,
        mode: approvalMode({ yes: args.yes, interactive: false }),
        info: (line) => stderr.write(`fork ${forkId}: ${line}\n`),
        warn: (line) => stderr.write(`fork ${forkId}: ${line}\n`),
      });
      const finish = async () => {
        stopAnswering();
        forks.delete(agent);
        await agent.dispose();
      };
      let result: Awaited<ReturnType<typeof runOnFork>>['result'];
      try {
        ({ result } = await runOnFork(agent, request.prompt));
      } catch (error) {
        await finish();
        throw error;
      }
      stderr.write(`fork ${forkId}: running on ${spec.provider}:${spec.modelId}\n`);
      void result.then(
        async (ended) => {
          stderr.write(`fork ${forkId}: ${ended.outcome}${ended.error ? ` (${ended.error.kind}: ${ended.error.message})` : ""}\n`);
          await finish();
        },
        async (error: unknown) => {
          stderr.write(`fork ${forkId}: ${error instanceof Error ? error.message : String(error)}\n`);
          await finish();
        },
      );
    };
    server = await startPlaybackServer({ store: opened.store, sessionId: args.sessionId, port: args.port, runFork }).catch((error: unknown) => {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EADDRINUSE' || code === 'EACCES') throw new UsageError(`--port: cannot listen on 127.0.0.1:${args.port} (${code}); pick another port, or leave --port out for any free one`);
      throw new UsageError((error as Error).message);
    });
    stderr.write(`open: ${server.pageUrl}\n(the page follows the session as it grows; Ctrl+C stops the server)\n`);
    await interrupted;
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      stderr.write(`loopchart: ${error.message}\nRun loopchart open --help for usage.\n`);
      return USAGE_ERROR;
    }
    stderr.write(`loopchart: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  } finally {
    for (const agent of forks) agent.abort('loopchart open stopped');
    await Promise.all([...forks].map((agent) => agent.dispose().catch(() => undefined)));
    await server?.close();
    await opened?.close();
  }
}

function forkModelSpec(text: string): ModelSpec {
  try {
    return parseModelSpec(text);
  } catch (error) {
    throw new Error(`model: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

/** The store `--session DIR` or `--pg URL` names. */
async function openStore(args: OpenArguments): Promise<{ store: SessionStore; close(): Promise<void> }> {
  if (args.pg !== undefined) {
    let pg: typeof import('pg');
    try {
      pg = (await import('pg')).default as unknown as typeof import('pg');
    } catch {
      throw new UsageError('--pg needs the pg package: npm install pg');
    }
    const { pgStore } = await import('../postgres/pg-store.js');
    const pool = new pg.Pool({ connectionString: args.pg });
    return { store: pgStore(pool), close: () => pool.end() };
  }
  return { store: fileStore(args.session!), close: async () => undefined };
}
