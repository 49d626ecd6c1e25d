import { createAgent } from '../agent.js';
import { atMentions } from '../context/at-mentions.js';
import { scriptedModel } from '../models/index.js';
import type { RunResult } from '../result.js';
import { builtinTools, type BuiltinToolName } from '../tools/index.js';
import { answerApprovals, approvalMode, approvalOptions, PROMPT_APPROVAL_RULES, type AskUser } from './approval.js';
import { EXPECTATION_FAILED, exitCodeByOutcome, USAGE_ERROR } from './exit-codes.js';
import { checkExpectations } from './expectations.js';
import { DEFAULT_API_KEY_ENV, resolveModel, type ModelSpec } from './model.js';
import { createPalette } from './palette.js';
import { redactingSink, type TextSink } from './redact.js';
import { createReporter, type Reporter } from './reporter.js';
import { loadScript, ScriptError, type Script } from './script.js';
import { createSpinner, noIndicator } from './spinner.js';
import { UsageError } from './usage-error.js';
import { prepareWorkspace } from './workspace-setup.js';

interface RunCommandSettings {
  /** A real model instead of the script's scripted model; required for a prompt. */
  model?: ModelSpec;
  baseURL?: string;
  /** The environment variable that holds the API key. Default `OPENAI_API_KEY`. */
  apiKeyEnv?: string;
  /** Where the API key is read from; the key is then deleted from it, so that tools (bash) do not inherit it. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  maxSteps?: number;
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
  stderr: TextSink;
  /** Colour on stderr. */
  color: boolean;
  /** A spinner on stderr for long tools (only for a terminal). */
  spinner?: boolean;
  /** Resolves when the user asks to stop (Ctrl+C): the run is aborted and ends `aborted`. */
  interrupted: Promise<void>;
}

/** `loopchart run`: a script file, or a prompt for a real model. */
export type RunCommandOptions = RunCommandSettings & ({ script: string; prompt?: undefined } | { prompt: string; script?: undefined });

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
    stderr,
    palette: createPalette(options.color),
    indicator,
  });
  try {
    return await run(options, reporter, secrets);
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

async function run(options: RunCommandOptions, reporter: Reporter, secrets: string[]): Promise<number> {
  const script = options.script !== undefined ? await loadScript(options.script) : undefined;
  const model = chooseModel(options, script, secrets);
  const cwd = await prepareWorkspace({
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
    fallback: script ? 'temp' : 'current',
    ...(script?.files ? { files: script.files } : {}),
  });
  reporter.info(`workspace: ${cwd}`);

  const tools = options.tools ?? (script?.tools as BuiltinToolName[] | undefined);
  const maxSteps = options.maxSteps ?? script?.maxSteps;
  const agent = createAgent({
    model,
    tools: builtinTools({ cwd, ...(tools ? { tools } : {}) }),
    ...(script?.instructions !== undefined ? { instructions: script.instructions } : {}),
    ...(maxSteps !== undefined ? { maxSteps } : {}),
    ...(script?.toolExecution ? { toolExecution: script.toolExecution } : {}),
    ...(script?.doomLoop !== undefined ? { doomLoop: script.doomLoop } : {}),
    ...approvalOptions(script ? script.approval : PROMPT_APPROVAL_RULES, script?.onDeny),
    // A prompt typed on the command line may point at files with @path; scripts say exactly what they send.
    ...(script ? {} : { transformPrompt: atMentions({ cwd }) }),
  });
  const subscription = agent.events$.subscribe((event) => reporter.event(event));
  const stopAnswering = answerApprovals({
    agent,
    mode: approvalMode({ yes: options.yes ?? false, interactive: options.askUser !== undefined }),
    ...(options.askUser ? { askUser: options.askUser } : {}),
    info: (line) => reporter.info(line),
    warn: (line) => reporter.warn(line),
  });
  let interrupted = false;
  void options.interrupted.then(() => {
    interrupted = true;
    agent.abort('interrupted by the user (SIGINT)');
  });

  let result: RunResult | undefined;
  try {
    for (const prompt of script ? [script.prompt].flat() : [options.prompt!]) {
      if (interrupted) break;
      result = await agent.run(prompt);
      if (result.outcome !== 'completed') break;
    }
  } finally {
    stopAnswering();
    subscription.unsubscribe();
  }
  if (!result) {
    reporter.warn('interrupted before the run started');
    return exitCodeByOutcome.aborted;
  }
  reporter.finish(result);
  if (interrupted && result.outcome === 'aborted') return exitCodeByOutcome.aborted;

  const failures = await checkExpectations(script?.expect, result, cwd);
  if (failures.length > 0) {
    reporter.warn(`expectations failed:\n${failures.map((failure) => `  - ${failure}`).join('\n')}`);
    return EXPECTATION_FAILED;
  }
  return script?.expect?.outcome !== undefined ? 0 : exitCodeByOutcome[result.outcome];
}

/** `--model` if given (its key joins `secrets` and leaves the environment), else the script's scripted model. */
function chooseModel(options: RunCommandOptions, script: Script | undefined, secrets: string[]) {
  if (options.model) {
    const env = options.env ?? process.env;
    const apiKeyEnv = options.apiKeyEnv ?? DEFAULT_API_KEY_ENV;
    const { model, apiKey } = resolveModel({
      spec: options.model,
      ...(options.baseURL !== undefined ? { baseURL: options.baseURL } : {}),
      apiKeyEnv,
      env,
    });
    if (apiKey !== undefined) {
      secrets.push(apiKey);
      delete env[apiKeyEnv];
    }
    return model;
  }
  if (!script) {
    const shown = options.prompt!.length > 60 ? `${options.prompt!.slice(0, 60)}…` : options.prompt!;
    throw new UsageError(
      `${JSON.stringify(shown)} is not an existing script file (.yaml, .yml or .json), so it is a prompt, and a prompt needs a real model: add --model openai:<id> or --model openai-compatible:<id>`,
    );
  }
  if (!script.turns) {
    throw new UsageError(`${options.script} has no turns for the scripted model: add turns, or run it against a real model with --model`);
  }
  return scriptedModel(script.turns);
}
