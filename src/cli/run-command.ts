import type { RunExtras } from './args.js';
import path from 'node:path';
import { createAgent, type Agent } from '../agent.js';
import type { ApprovalRules } from '../approval/approval-policy.js';
import { atMentions } from '../context/at-mentions.js';
import { recordModel, scriptedModel, type ModelRecording } from '../test/index.js';
import type { RunResult } from '../core/result.js';
import { builtinTools, defaultBuiltinToolNames, type BuiltinToolName } from '../tools/index.js';
import { answerApprovals, approvalMode, approvalOptions, PROMPT_APPROVAL_RULES, withRealModelRules, type AskUser } from './approval.js';
import { EXPECTATION_FAILED, exitCodeByOutcome, exitCodeBySignal, USAGE_ERROR } from './exit-codes.js';
import type { StopReason, StopSignal } from './interrupt.js';
import { checkExpectations } from './expectations.js';
import { startCliInspector } from './inspector.js';
import { apiKeyVariable, resolveModel, type ModelSpec } from './model.js';
import { checkOutputFile, writeOutputFile } from './output-files.js';
import { createPalette } from './palette.js';
import { recordedScript } from './recorded-script.js';
import { withdrawProviderKeys } from './provider-keys.js';
import { redact, redactingSink, redactValue, type TextSink } from './redact.js';
import { redactingTools } from './redacting-tools.js';
import { commandEnvironment, passedVariablesProblem } from '../secrets/credential-variables.js';
import { recordedTools } from './recorded-tools.js';
import { createReporter, type Reporter } from './reporter.js';
import { writeRunArtifacts } from './run-artifacts.js';
import { loadScript, ScriptError, type Script } from './script.js';
import { connectCliMcpTools, withMcpApprovalRules } from './mcp-tools.js';
import { loadOutputSchema } from './output-schema.js';
import type { McpTools } from '../mcp/index.js';
import { openCliSession, type CliSession } from './session.js';
import type { SessionStore } from '../persistence/session-store.js';
import { latestSessionId } from './latest-session.js';
import type { CliConfig } from './config-schema.js';
import { withConfigDefaults } from './config-defaults.js';
import { runTimeout } from './run-timeout.js';
import type { AgentTimeout } from '../options.js';
import type { LanguageModelV4 } from '@ai-sdk/provider';
import { reasoningCallSettings, withReasoning, type ReasoningRequest } from './reasoning-settings.js';
import { cliApprovalPolicy, unmatchedRule } from './permissions.js';
import { createSpinner, noIndicator } from './spinner.js';
import { UsageError } from './usage-error.js';
import { costBudget } from './cost-budget.js';
import { formatCost } from '../cost/format-cost.js';
import { prepareWorkspace } from './workspace-setup.js';
import { readProjectInstructions, readSystemFile } from './instruction-files.js';
import { composeInstructions } from './system-prompt.js';
import { chooseCliSandbox, type CliSandbox } from './sandbox-choice.js';

interface RunCommandSettings extends RunExtras {
  /** A real model instead of the script's scripted model; required for a prompt. */
  model?: ModelSpec;
  baseURL?: string;
  /** The environment variable that holds the API key. Default `OPENAI_API_KEY`. */
  apiKeyEnv?: string;
  /** Where the API key is read from; every provider key variable is deleted from it first, so that tools (bash) do not inherit one. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** `--allow-insecure-key`: send the key over plain http to a host that is not this machine. */
  allowInsecureKey?: boolean;
  cwd?: string;
  maxSteps?: number;
  /** `--timeout` (the whole run, in ms) or the config's `timeout`; a run on a real model also gets stream-silence limits (`runTimeout`). */
  timeout?: AgentTimeout;
  /** `--max-cost`: a budget in US dollars (needs a priced model). */
  maxCost?: number;
  tools?: BuiltinToolName[];
  /** `--yes`: approve every tool call that asks for approval. */
  yes?: boolean;
  /** How to ask the user about a tool call that needs approval; absent when no one can be asked (no terminal), so such calls are denied. */
  askUser?: AskUser;
  /** stdout gets only the final RunResult as JSON. */
  json: boolean;
  /** stdout gets only the AgentEvents as NDJSON. */
  events: boolean;
  stdout: TextSink;
  /** stdout is a terminal: the answer streams as it arrives (otherwise each attempt's text waits until it is kept). */
  stdoutIsTerminal?: boolean;
  stderr: TextSink;
  /** Colour on stderr. */
  color: boolean;
  /** A spinner on stderr for long tools (only for a terminal). */
  spinner?: boolean;
  /**
   * Resolves when the user asks to stop (Ctrl+C), with the signal (SIGINT when none is given), or
   * with SIGPIPE when stdout or stderr lost its reader: the run is aborted and ends `aborted`, exit
   * 130, or 143 for SIGTERM, 129 for SIGHUP, 141 for SIGPIPE.
   */
  interrupted: Promise<StopReason | void>;
  /** The config files' and `LOOPCHART_MODEL`'s settings: defaults for a run on a real model (see `withConfigDefaults`). */
  config?: CliConfig;
  /** A store the caller opened (`loopchart fork --pg`), in place of `session`'s file store; `where` names it in messages. */
  sessionStore?: { store: SessionStore; where: string };
}

/** `loopchart run`: a script file, or a prompt for a real model; neither only to finish a resumed session's run. */
export type RunCommandOptions = RunCommandSettings &
  ({ script: string; prompt?: undefined } | { prompt: string; script?: undefined } | { script?: undefined; prompt?: undefined });

/** Why the agent was aborted, by what stopped the run. */
const ABORT_REASONS: Readonly<Record<StopReason, string>> = {
  SIGINT: 'interrupted by the user (SIGINT)',
  SIGTERM: 'terminated (SIGTERM)',
  SIGHUP: 'hung up (SIGHUP): the terminal was closed',
  SIGPIPE: 'the output was closed (EPIPE): its reader went away',
};

/** What stderr says when a signal stops the run. */
const STOP_NOTICES: Readonly<Record<StopSignal, string>> = {
  SIGINT: '\nloopchart: interrupted, stopping the run (press Ctrl+C again to exit at once)\n',
  SIGTERM: '\nloopchart: terminated (SIGTERM), stopping the run (a second signal exits at once)\n',
  SIGHUP: '\nloopchart: hung up (SIGHUP), stopping the run (a second signal exits at once)\n',
};

/**
 * Runs a script or a prompt to the end and resolves with the process exit
 * code. Never rejects: usage errors and invalid scripts are reported on stderr
 * (exit 2), anything unexpected too (exit 1). The API key never reaches
 * stdout or stderr.
 */
export async function runCommand(options: RunCommandOptions): Promise<number> {
  const secrets: string[] = [];
  const stderr = redactingSink(options.stderr, secrets);
  const indicator = options.spinner ? createSpinner({ stream: stderr }) : noIndicator;
  const reporter = createReporter(options.json ? 'json' : options.events ? 'events' : 'human', {
    stdout: redactingSink(options.stdout, secrets),
    stdoutIsTerminal: options.stdoutIsTerminal ?? false,
    stderr,
    palette: createPalette(options.color),
    indicator,
  });
  let stoppedBy: StopReason | undefined;
  void options.interrupted.then((signal) => {
    stoppedBy = signal ?? 'SIGINT';
    indicator.stop();
    // A reader that went away (`| head -1`) is no news to anyone: the run stops quietly.
    if (stoppedBy !== 'SIGPIPE') stderr.write(STOP_NOTICES[stoppedBy]);
  });
  try {
    const code = await run(options, reporter, secrets);
    // An interrupted run exits 128 + its signal's number: 130 for Ctrl+C, 143 for SIGTERM.
    return code === exitCodeByOutcome.aborted && stoppedBy !== undefined ? exitCodeBySignal[stoppedBy] : code;
  } catch (error) {
    if (error instanceof ScriptError) {
      reporter.warn(error.message);
      return USAGE_ERROR;
    }
    if (error instanceof UsageError) {
      reporter.warn(`loopchart: ${error.message}\nRun loopchart run --help for usage.`);
      return USAGE_ERROR;
    }
    reporter.warn(`loopchart: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  } finally {
    indicator.stop();
  }
}

async function run(given: RunCommandOptions, reporter: Reporter, secrets: string[]): Promise<number> {
  for (const [option, file] of [['--trace', given.trace], ['--report', given.report], ['--record', given.record]] as const) {
    if (file !== undefined) await checkOutputFile(option, file);
  }
  const script = given.script !== undefined ? await loadScript(given.script) : undefined;
  const options = withConfigDefaults(given, given.config ?? {}, script);
  // After the config is merged: its model may be the openai-compatible one --structured-outputs is for.
  if (options.structuredOutputs && options.model?.provider !== 'openai-compatible') {
    throw new UsageError(
      '--structured-outputs is for --model openai-compatible:<id> (it says the server takes a json_schema response format); the other providers send the schema in their own form',
    );
  }
  const output = options.outputSchema !== undefined ? await loadOutputSchema(options.outputSchema) : undefined;
  const systemFromFile = options.systemFile !== undefined ? await readSystemFile(options.systemFile) : undefined;
  // No tool may inherit a key, whatever the run: every provider key leaves the environment now.
  const runKeyVariable = apiKeyVariable(options.model, options.apiKeyEnv);
  const keys = withdrawProviderKeys(options.env ?? process.env, runKeyVariable);
  secrets.push(...Object.values(keys));
  const chosen = await chooseModel(options, script, keys);
  const model = options.model ? withReasoning(chosen as LanguageModelV4, reasoningCallSettings(options.model.provider, reasoningRequest(options))) : chosen;
  if (!options.model && (options.reasoningEffort !== undefined || options.thinkingBudget !== undefined)) {
    throw new UsageError('--reasoning-effort and --thinking-budget need a real model (--model): the scripted model replays its turns');
  }
  const recording = options.record !== undefined ? recordModel(model) : undefined;
  const resume = options.session !== undefined && options.continueLatest ? await latestSessionId(options.session) : options.resume;
  const session = options.sessionStore
    ? { store: options.sessionStore.store, ...(resume !== undefined ? { resumeId: resume } : {}) }
    : options.session !== undefined
      ? await openCliSession(options.session, resume)
      : undefined;
  const workspace = await prepareWorkspace({
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
    fallback: script ? 'temp' : 'current',
    ...(script?.files ? { files: script.files } : {}),
  });
  const cwd = workspace.root;
  reporter.info(`workspace: ${cwd}`);
  // The MCP servers of --mcp stop when the run ends, whatever the outcome (Ctrl+C included).
  let mcp: McpTools | undefined;
  // A temporary workspace (a script run without --cwd) goes when the run ends, its expectations checked.
  try {
    const instructions = composeInstructions({
      ...(script?.instructions !== undefined ? { script: script.instructions } : {}),
      ...((options.system ?? systemFromFile) !== undefined ? { replacement: options.system ?? systemFromFile } : {}),
      ...(options.agentsMd ? { project: await readProjectInstructions(cwd) } : {}),
      ...(options.appendSystem !== undefined ? { append: options.appendSystem } : {}),
    });
    const tools = options.tools ?? (script?.tools as BuiltinToolName[] | undefined) ?? defaultBuiltinToolNames;
    const maxSteps = options.maxSteps ?? script?.maxSteps;
    const sandbox = await runSandbox(options, script, tools, cwd, reporter);
    if (options.mcp !== undefined) {
      const stopConnecting = new AbortController();
      void options.interrupted.then(() => stopConnecting.abort());
      try {
        mcp = await connectCliMcpTools(options.mcp, {
          reservedToolNames: tools,
          signal: stopConnecting.signal,
          sandbox: sandbox?.mcp ?? 'none',
          // A server's log, named and made safe (reporter lines go through terminalSafe and the redacting sink).
          serverLog: (line, server) => reporter.notice(`mcp ${server}: ${line}`),
          // ${NAME} in the file sees the keys withdrawn above (a server's own BRAVE_API_KEY), never the run's own key.
          env: { ...(options.env ?? process.env), ...keys },
          runKeyVariable,
        });
      } catch (error) {
        if (!stopConnecting.signal.aborted) throw error;
        reporter.warn('interrupted before the run started');
        return exitCodeByOutcome.aborted;
      }
      const servers = Object.entries(mcp.toolNamesByServer).map(([server, names]) => `${server} (${names.length} tool${names.length === 1 ? '' : 's'})`);
      reporter.info(`mcp: ${servers.join(', ') || 'no servers'}`);
    }
    // A real model is not the script's author: whatever the script says, it asks before changing files or running commands.
    const approval = withMcpApprovalRules(
      !script ? PROMPT_APPROVAL_RULES : options.model ? withRealModelRules(script.approval) : script.approval,
      Object.keys(mcp?.tools ?? {}),
      { realModel: !script || options.model !== undefined },
    );
    const permissions = { allow: options.allow ?? [], deny: options.deny ?? [], mode: options.permissionMode ?? 'ask' } as const;
    // Only the command line's own rules: a config file's are general (bash(git *) for the runs that have bash).
    const unmatched = unmatchedRule({ ...permissions, allow: given.allow ?? [], deny: given.deny ?? [] }, [...tools, ...Object.keys(mcp?.tools ?? {})]);
    if (unmatched !== undefined) throw new UsageError(unmatched);
    const policy = cliApprovalPolicy(approval, permissions, cwd);
    const prompts = script ? [script.prompt].flat() : options.prompt !== undefined ? [options.prompt] : [];
    const inspector =
      options.inspectPort !== undefined
        ? await startCliInspector({
            port: options.inspectPort,
            onInspectorUnavailable: (reason) => reporter.warn(`inspector: ${reason}; the run goes on without it (--trace or --report record the same states)`),
            onClientClosed: (reason) => reporter.warn(`inspector: ${reason}; the run goes on`),
            onDropped: (events, reason) => reporter.warn(`inspector: ${events} events were dropped (${reason}); the Stately inspector shows the run without them, the run goes on`),
          })
        : undefined;
    if (inspector) reporter.notice(`inspector: open ${inspector.pageUrl} to watch the run in the Stately inspector (it closes when the run ends)`);
    if (inspector && options.inspectWait) {
      reporter.notice('inspector: waiting for the page to be opened before the run starts (Ctrl+C to stop)');
      const stop = new AbortController();
      void options.interrupted.then(() => stop.abort());
      const opened = await inspector.viewerConnected(stop.signal).then(
        () => true,
        () => false,
      );
      if (!opened) {
        await inspector.close();
        reporter.warn('interrupted before the run started');
        return exitCodeByOutcome.aborted;
      }
    }

    const timeout = runTimeout(options.timeout, { realModel: !script || options.model !== undefined });
    const maxCost = options.maxCost ?? script?.maxCost;
    const budgetSource = options.maxCost !== undefined ? '--max-cost' : "the script's maxCost";
    const budget = maxCost !== undefined ? await costBudget(model, maxCost, budgetSource) : undefined;
    let outcome: { result: RunResult; interrupted: boolean; sessionId?: string } | undefined;
    try {
      const agent = createAgent({
        model: recording?.model ?? model,
        // Redacted before anything cuts a result: a cut inside a key would leave a piece of it that redaction misses.
        tools: redactingTools(
          {
            ...builtinTools({
              cwd,
              tools: [...tools],
              // Only with a bash tool: builtinTools refuses bash options without one.
              ...(tools.includes('bash') ? { bash: { redact: secrets, ...(sandbox ? { sandbox: sandbox.bash } : {}), ...(options.passEnv ? { passEnv: options.passEnv } : {}) } } : {}),
            }),
            ...mcp?.tools,
            ...recordedTools(script?.toolResults),
          },
          secrets,
        ),
        ...(instructions !== undefined ? { instructions } : {}),
        ...(maxSteps !== undefined ? { maxSteps } : {}),
        ...(timeout !== undefined ? { timeout } : {}),
        ...(budget ? { stopWhen: budget } : {}),
        ...(script?.toolExecution ? { toolExecution: script.toolExecution } : {}),
        ...(script?.doomLoop !== undefined ? { doomLoop: script.doomLoop } : {}),
        ...approvalOptions(policy, script?.onDeny),
        // A prompt typed on the command line may point at files with @path; scripts say exactly what they send.
        ...(script ? {} : { transformPrompt: atMentions({ cwd }) }),
        ...(session ? { store: session.store, ...(session.resumeId !== undefined ? { sessionId: session.resumeId } : {}) } : {}),
        ...(inspector ? { inspect: inspector.inspect } : {}),
        ...(output ? { output } : {}),
        // The keys the run knows, given once: the session files, the inspector, the trace and the report get them redacted.
        secrets,
      });
      outcome = await runPrompts(agent, prompts, options, reporter, session, secrets);
    } finally {
      await inspector?.close();
    }
    if (!outcome) {
      reporter.warn('interrupted before the run started');
      return exitCodeByOutcome.aborted;
    }
    const { result, interrupted, sessionId } = outcome;
    // --json tells which session the run was kept in and which sandbox bash and the MCP servers ran in, beside the result.
    reporter.finish({ ...result, ...(sessionId !== undefined ? { sessionId } : {}), ...(sandbox ? { sandbox: sandbox.report } : {}) });
    if (maxCost !== undefined && result.cost !== undefined && result.cost.total > maxCost && result.finishReason === 'tool-calls') {
      reporter.warn(`stopped by ${budgetSource}: the run cost ${formatCost(result.cost)}, over the budget of ${formatCost({ ...result.cost, total: maxCost })}`);
    }

    await writeResultFiles(result, recording, { options, script, prompts, instructions, tools, maxSteps, approval, secrets }, reporter);
    if (interrupted && result.outcome === 'aborted') return exitCodeByOutcome.aborted;

    const failures = await checkExpectations(script?.expect, result, cwd);
    if (failures.length > 0) {
      reporter.warn(`expectations failed:\n${failures.map((failure) => `  - ${failure}`).join('\n')}`);
      return EXPECTATION_FAILED;
    }
    return script?.expect?.outcome !== undefined ? 0 : exitCodeByOutcome[result.outcome];
  } finally {
    await mcp?.close().catch((error: unknown) => reporter.warn(`mcp: ${error instanceof Error ? error.message : String(error)}`));
    await workspace.dispose();
  }
}

/**
 * The sandbox of a run with bash or MCP servers (undefined for a run with
 * neither), said on stderr: once as a notice when there is none. Refuses
 * bash without one for a real model unless `--no-sandbox`.
 */
async function runSandbox(options: RunCommandOptions, script: Script | undefined, tools: readonly BuiltinToolName[], workspace: string, reporter: Reporter): Promise<CliSandbox | undefined> {
  const bash = tools.includes('bash');
  if (options.passEnv !== undefined) {
    if (!bash) throw new UsageError('--pass-env gives variables to bash, and the run has no bash tool (--tools)');
    const problem = passedVariablesProblem(options.passEnv, process.env);
    if (problem !== undefined) throw new UsageError(`--pass-env: ${problem}`);
  }
  if (bash) {
    const { withheld } = commandEnvironment(process.env, options.passEnv);
    if (withheld.length > 0) reporter.info(`bash: its environment leaves out ${withheld.join(', ')} (they look like credentials; --pass-env NAME passes one)`);
  }
  if (!bash && options.mcp === undefined) return undefined;
  const chosen = await chooseCliSandbox({
    noSandbox: options.noSandbox ?? false,
    allowNetwork: options.allowNetwork ?? script?.allowNetwork ?? false,
    realModel: !script || options.model !== undefined,
    bash,
  });
  if (chosen.notice !== undefined) reporter.notice(chosen.notice);
  else if (chosen.report.kind === 'bubblewrap') reporter.info(`sandbox: bubblewrap (bash writes only ${workspace} and a private /tmp, ${chosen.report.network ? 'with' : 'without'} network)`);
  // Sandboxed MCP servers may write the workspace as well as their own working directory.
  const mcp = typeof chosen.mcp === 'object' ? { ...chosen.mcp, writable: [workspace] } : chosen.mcp;
  return { ...chosen, mcp };
}

/**
 * Runs the prompts one after another on the agent, or, for a resumed session
 * that stopped in the middle of a run, finishes that run instead. Answers
 * approvals and aborts on Ctrl+C. Undefined when interrupted before anything ran.
 */
async function runPrompts(
  agent: Agent,
  prompts: readonly string[],
  options: RunCommandOptions,
  reporter: Reporter,
  session: CliSession | undefined,
  secrets: readonly string[],
): Promise<{ result: RunResult; interrupted: boolean; sessionId?: string } | undefined> {
  // Scripts that keep a session find its id in each run's run-start (--events).
  const subscription = agent.events$.subscribe((event) =>
    reporter.event(event.type === 'run-start' && agent.sessionId !== undefined ? { ...event, sessionId: agent.sessionId } : event),
  );
  const stopAnswering = answerApprovals({
    agent,
    mode: approvalMode({ yes: options.yes ?? false, interactive: options.askUser !== undefined, ...(options.permissionMode ? { permissionMode: options.permissionMode } : {}) }),
    ...(options.askUser ? { askUser: redactingAsker(options.askUser, secrets) } : {}),
    info: (line) => reporter.info(line),
    warn: (line) => reporter.warn(line),
  });
  let interrupted = false;
  void options.interrupted.then((signal) => {
    interrupted = true;
    agent.abort(ABORT_REASONS[signal ?? 'SIGINT']);
  });

  let result: RunResult | undefined;
  try {
    if (session) {
      await agent.ready();
      const dir = options.sessionStore?.where ?? options.session!;
      reporter.notice(
        session.resumeId !== undefined
          ? `session: ${agent.sessionId} resumed from ${dir} (${agent.messages.length} messages)`
          : `session: ${agent.sessionId} (continue it with --session ${dir} --resume ${agent.sessionId})`,
      );
    }
    result = session?.resumeId !== undefined ? await agent.resume() : undefined;
    if (result) {
      const unsent = prompts.length > 0 ? '; the prompt was not sent (resume again to send it)' : '';
      reporter.notice(`session: finished the run it was in the middle of${unsent}`);
    } else {
      if (prompts.length === 0) {
        throw new UsageError(`session ${agent.sessionId} is not in the middle of a run: give a prompt or a script to continue it`);
      }
      for (const prompt of prompts) {
        if (interrupted) break;
        result = await agent.run(prompt);
        if (result.outcome !== 'completed') break;
      }
    }
  } finally {
    stopAnswering();
    subscription.unsubscribe();
  }
  return result ? { result, interrupted, ...(agent.sessionId !== undefined ? { sessionId: agent.sessionId } : {}) } : undefined;
}

/** The asker, shown each request with the secrets redacted: the question goes to the terminal, past the redacting sinks. */
function redactingAsker(askUser: AskUser, secrets: readonly string[]): AskUser {
  return (request, signal) => askUser(redactValue(request, secrets), signal);
}

/** How the run was set up, for the files written after it. */
interface RunSetup {
  options: RunCommandOptions;
  script: Script | undefined;
  prompts: readonly string[];
  /** The system prompt the run sent. */
  instructions: string | undefined;
  tools: readonly string[];
  maxSteps: number | undefined;
  approval: ApprovalRules | undefined;
  secrets: readonly string[];
}

/** `--trace`, `--report` and `--record`: the files that tell what the run did, written whatever its outcome. */
async function writeResultFiles(result: RunResult, recording: ModelRecording | undefined, setup: RunSetup, reporter: Reporter): Promise<void> {
  const { options, prompts, secrets } = setup;
  // The prompt is the CLI's own: the agent redacted its trace, the title is redacted here.
  const title = redact(`loopchart · ${options.script !== undefined ? path.basename(options.script) : shorten(prompts.at(-1) ?? 'resumed session', 60)}`, secrets);
  const files = { ...(options.trace !== undefined ? { trace: options.trace } : {}), ...(options.report !== undefined ? { report: options.report } : {}) };
  const artifacts = await writeRunArtifacts(files, result.trace, { title });
  for (const line of artifacts.written) reporter.info(line);
  if (artifacts.missing) reporter.warn(artifacts.missing);
  if (recording && options.record !== undefined) await writeRecording(options.record, recording, result, setup, reporter);
}

/** `--record`: the recorded turns and the run's setup as a script that replays it. */
async function writeRecording(file: string, recording: ModelRecording, result: RunResult, setup: RunSetup, reporter: Reporter): Promise<void> {
  const { options, script, prompts, instructions, tools, maxSteps, approval, secrets } = setup;
  const turns = recording.turns();
  if (turns.length === 0) {
    reporter.warn(`--record: nothing to record in ${file}: the model was never called`);
    return;
  }
  const yaml = recordedScript({
    prompts: [...prompts],
    ...(script ? { script } : {}),
    ...(instructions !== undefined ? { instructions } : {}),
    tools,
    ...(maxSteps !== undefined ? { maxSteps } : {}),
    ...(approval !== undefined ? { approval } : {}),
    turns,
    // An interrupted run cannot be replayed interrupted: its replay finishes the last answer.
    ...(result.outcome !== 'aborted' ? { outcome: result.outcome } : {}),
    model: options.model ? `${options.model.provider}:${options.model.modelId}` : `the scripted model of ${options.script ?? 'the script'}`,
    recordedAt: new Date(),
  });
  await writeOutputFile('--record', file, redact(yaml, secrets));
  reporter.info(`recording: ${file} (replay it offline: loopchart run ${file})`);
}

function reasoningRequest(options: RunCommandOptions): ReasoningRequest {
  return {
    ...(options.reasoningEffort !== undefined ? { effort: options.reasoningEffort } : {}),
    ...(options.thinkingBudget !== undefined ? { budget: options.thinkingBudget } : {}),
  };
}

function shorten(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

/** `--model` if given (its key joins `secrets` and leaves the environment), else the script's scripted model. */
async function chooseModel(options: RunCommandOptions, script: Script | undefined, keys: Record<string, string>) {
  if (options.model) {
    const { model } = await resolveModel({
      spec: options.model,
      ...(options.baseURL !== undefined ? { baseURL: options.baseURL } : {}),
      ...(options.apiKeyEnv !== undefined ? { apiKeyEnv: options.apiKeyEnv } : {}),
      env: keys,
      processEnv: options.env ?? process.env,
      allowInsecureKey: options.allowInsecureKey ?? false,
      ...(options.structuredOutputs ? { structuredOutputs: true } : {}),
    });
    return model;
  }
  if (!script && options.prompt === undefined) {
    throw new UsageError(`${options.continueLatest ? '--continue' : '--resume'} without a prompt or a script needs --model: the model that finishes the session's run`);
  }
  if (!script) {
    const shown = shorten(options.prompt!, 60);
    throw new UsageError(
      `${JSON.stringify(shown)} is not an existing script file (.yaml, .yml or .json), so it is a prompt, and a prompt needs a real model: add --model <provider>:<model-id> (openai, anthropic, google or openai-compatible), or set one in LOOPCHART_MODEL or a config file (loopchart config shows where)`,
    );
  }
  if (!script.turns) {
    throw new UsageError(`${options.script} has no turns for the scripted model: add turns, or run it against a real model with --model`);
  }
  return scriptedModel(script.turns);
}
