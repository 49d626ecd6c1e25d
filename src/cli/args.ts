import { MAX_TIMER_MS } from '../core/max-timer-ms.js';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { builtinToolNames, type BuiltinToolName } from '../tools/index.js';
import type { HelpTopic } from './help.js';
import { parseModelSpec, type ModelSpec } from './model.js';
import type { OutputMode } from './reporter.js';
import { closestName } from '../core/closest-name.js';
import { ENV_VARIABLE_NAME } from '../secrets/credential-variables.js';
import { UsageError } from './usage-error.js';
import { permissionRuleProblem } from './permission-rule.js';
import { permissionModes, type PermissionMode } from './permissions.js';
import { reasoningEfforts, type ReasoningEffort } from './reasoning-settings.js';
import { SESSION_ID_RULE, sessionIdProblem } from '../persistence/session-id.js';
import type { SessionPlace } from './session-source.js';
import type { OpenArguments } from './open-command.js';

/** What the command line asks for. */
export type CliCommand =
  | { name: 'help'; topic: HelpTopic }
  | { name: 'version' }
  | { name: 'chart' }
  | { name: 'config'; args: ConfigArguments }
  | { name: 'run'; args: RunArguments }
  | { name: 'report'; args: ReportArguments }
  | { name: 'fork'; args: ForkArguments }
  | { name: 'script'; args: ScriptArguments }
  | { name: 'open'; args: OpenArguments };

/** What `loopchart run` keeps or shows besides the run itself. */
export interface RunExtras {
  /** `--trace FILE`: write the run's trace as JSON. */
  trace?: string;
  /** `--report FILE`: write the run's HTML report. */
  report?: string;
  /** `--record FILE`: write the model's answers as a script that replays the run offline. */
  record?: string;
  /** `--session DIR`: keep the session in a file store in DIR. */
  session?: string;
  /** `--resume ID`: continue that session (needs `session`). */
  resume?: string;
  /** `-c`, `--continue`: continue the session of `session` written to last. */
  continueLatest?: boolean;
  /** `--inspect[=PORT]`: serve the Stately inspector on 127.0.0.1; 0 picks a free port. */
  inspectPort?: number;
  /** `--inspect-wait`: with `--inspect`, start the run only once the inspector page is open. */
  inspectWait?: boolean;
  /** `--mcp FILE`: an `mcpServers` JSON file whose servers' tools join the run's tools. */
  mcp?: string;
  /** `--output-schema FILE`: a JSON Schema the final answer is parsed and validated against (`result.output`). */
  outputSchema?: string;
  /** `--structured-outputs`: the openai-compatible server takes `--output-schema`'s schema as a `json_schema` response format. */
  structuredOutputs?: boolean;
  /** `--no-sandbox`: bash and stdio MCP servers run unconfined, even for a real model. */
  noSandbox?: boolean;
  /** `--allow-network`: bash's sandbox keeps the network. */
  allowNetwork?: boolean;
  /** `--pass-env NAME` (repeatable): variables that look like credentials that bash gets all the same. */
  passEnv?: string[];
  /** `--system TEXT`: the system prompt, instead of the script's instructions. */
  system?: string;
  /** `--system-file FILE`: the system prompt read from FILE (instead of the script's). */
  systemFile?: string;
  /** `--append-system TEXT`: added at the end of the system prompt. */
  appendSystem?: string;
  /** `--agents-md`: AGENTS.md and CLAUDE.md of the workspace join the system prompt. */
  agentsMd?: boolean;
  /** `--allow RULE` (repeatable): calls it matches run without asking. */
  allow?: string[];
  /** `--deny RULE` (repeatable): calls it matches are denied. */
  deny?: string[];
  /** `--permission-mode`: how calls that need approval are treated. */
  permissionMode?: PermissionMode;
  /** `--reasoning-effort`: how much the model reasons (the AI SDK's `reasoning` call setting). */
  reasoningEffort?: ReasoningEffort;
  /** `--thinking-budget N`: tokens the model may think for (Anthropic, Google). */
  thinkingBudget?: number;
}

/** `loopchart run`'s arguments, checked for form (not yet against the file system or the environment). */
export interface RunArguments extends RunExtras {
  /** A script file or a prompt; see `runTarget`. Only `--resume` and `--continue` may leave it out (to finish a run the session was in the middle of). */
  target?: string;
  model?: ModelSpec;
  baseURL?: string;
  /** `--api-key-env`: the variable the key is read from instead of the provider's own. */
  apiKeyEnv?: string;
  tools?: BuiltinToolName[];
  cwd?: string;
  maxSteps?: number;
  /** `--timeout MS`: the whole run's time limit (`timeout.totalMs`); past it the run ends `timeout`, exit 7. */
  timeout?: number;
  /** `--max-cost USD`: the run ends at the step boundary after its cost goes over this (`isCostOver`). */
  maxCost?: number;
  yes: boolean;
  /** `--allow-insecure-key`: send the API key over plain http to another machine. */
  allowInsecureKey?: boolean;
  output: OutputMode;
  noColor: boolean;
}

/** `loopchart config`'s arguments. */
export interface ConfigArguments {
  /** `--cwd DIR`: the workspace whose `.loopchart.json` applies (default: the current directory). */
  cwd?: string;
  json: boolean;
}

/** `loopchart report`'s arguments. */
export interface ReportArguments {
  /** A trace file (`run --trace`), or a RunResult (`run --json`). */
  traceFile: string;
  /** `-o FILE`; stdout without it. */
  output?: string;
}

/** `loopchart fork`'s arguments. */
export interface ForkArguments {
  /** The session to fork. */
  sessionId: string;
  /** `--at N`: the checkpoint to fork at. */
  at: number;
  place: SessionPlace;
  /** `--prompt TEXT`: run on in the fork with this message (as `loopchart run` does, with its options in `run`). */
  prompt?: string;
  /** `loopchart run`'s options for the run on, with `--prompt`. */
  run?: RunArguments;
  json: boolean;
}

/** `loopchart script`'s arguments. */
export interface ScriptArguments {
  sessionId: string;
  /** `--at N`: the script stops at this checkpoint. */
  at?: number;
  /** `-o FILE`: `.yaml`, `.yml` or `.json`. */
  output: string;
  place: SessionPlace;
}

const commands = ['run', 'report', 'chart', 'config', 'fork', 'script', 'open', 'help'] as const;

const runOptions = {
  model: { type: 'string' },
  'base-url': { type: 'string' },
  'api-key-env': { type: 'string' },
  tools: { type: 'string' },
  cwd: { type: 'string' },
  'max-steps': { type: 'string' },
  timeout: { type: 'string' },
  'max-cost': { type: 'string' },
  yes: { type: 'boolean', short: 'y' },
  json: { type: 'boolean' },
  events: { type: 'boolean' },
  'no-color': { type: 'boolean' },
  trace: { type: 'string' },
  report: { type: 'string' },
  record: { type: 'string' },
  session: { type: 'string' },
  resume: { type: 'string' },
  continue: { type: 'boolean', short: 'c' },
  'no-session': { type: 'boolean' },
  inspect: { type: 'string' },
  'inspect-wait': { type: 'boolean' },
  'allow-insecure-key': { type: 'boolean' },
  mcp: { type: 'string' },
  'output-schema': { type: 'string' },
  'structured-outputs': { type: 'boolean' },
  'no-sandbox': { type: 'boolean' },
  'allow-network': { type: 'boolean' },
  'pass-env': { type: 'string', multiple: true },
  system: { type: 'string' },
  'system-file': { type: 'string' },
  'append-system': { type: 'string' },
  'agents-md': { type: 'boolean' },
  allow: { type: 'string', multiple: true },
  deny: { type: 'string', multiple: true },
  'permission-mode': { type: 'string' },
  'reasoning-effort': { type: 'string' },
  'thinking-budget': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

const reportOptions = {
  output: { type: 'string', short: 'o' },
  help: { type: 'boolean', short: 'h' },
} as const;

const openOptions = {
  session: { type: 'string' },
  pg: { type: 'string' },
  port: { type: 'string' },
  inspect: { type: 'boolean' },
  model: { type: 'string' },
  'base-url': { type: 'string' },
  'api-key-env': { type: 'string' },
  tools: { type: 'string' },
  cwd: { type: 'string' },
  yes: { type: 'boolean', short: 'y' },
  system: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** The long names of `open`'s options. */
export const openOptionNames: readonly string[] = Object.keys(openOptions);

const chartOptions = { help: { type: 'boolean', short: 'h' } } as const;

const configOptions = { cwd: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } as const;

/** The long names of `config`'s options. */
export const configOptionNames: readonly string[] = Object.keys(configOptions);

/** The long names of `run`'s options, e.g. `max-steps`. */
export const runOptionNames: readonly string[] = Object.keys(runOptions);

/** The long names of `report`'s options. */
export const reportOptionNames: readonly string[] = Object.keys(reportOptions);

/** The port `--inspect` without a value asks for: any free one. */
export const ANY_PORT = 0;

/**
 * Parses `loopchart`'s arguments (without `node` and the script path).
 *
 * @example
 * parseCommandLine(['run', 'demo.yaml', '--json']) // { name: 'run', args: { target: 'demo.yaml', output: 'json', … } }
 * parseCommandLine(['chart', '--help'])            // { name: 'help', topic: 'chart' }
 * parseCommandLine(['run'], { stdinIsPiped: true })  // { name: 'run', args: { target: '-', … } }: the prompt comes from stdin
 * parseCommandLine(['report', 'trace.json', '-o', 'run.html']) // { name: 'report', args: { traceFile: 'trace.json', output: 'run.html' } }
 * parseCommandLine(['open', 'chat-42', '--session', '.sessions']) // { name: 'open', args: { sessionId: 'chat-42', session: '.sessions', port: 0, … } }
 * @throws UsageError naming the bad argument.
 */
export function parseCommandLine(argv: readonly string[], input: CommandLineContext = {}): CliCommand {
  const [first, ...rest] = argv;
  if (first === undefined) throw new UsageError('no command given');
  if (first === '--help' || first === '-h') return { name: 'help', topic: 'main' };
  if (first === '--version' || first === '-v') return { name: 'version' };
  if (!commands.includes(first as (typeof commands)[number])) {
    throw new UsageError(first.startsWith('-') ? `unknown option ${first} (options come after the command)` : `unknown command "${first}"`);
  }
  if (first === 'help') return { name: 'help', topic: helpTopic(rest) };
  if (asksForHelp(rest)) return { name: 'help', topic: first as HelpTopic };
  if (first === 'chart') {
    const { positionals } = parse(rest, chartOptions, 'chart');
    if (positionals.length > 0) throw new UsageError(`chart takes no arguments, got "${positionals[0]}"`);
    return { name: 'chart' };
  }
  if (first === 'config') {
    const { values, positionals } = parse(rest, configOptions, 'config');
    if (positionals.length > 0) throw new UsageError(`config takes no arguments, got "${positionals[0]}"`);
    return { name: 'config', args: { ...(values.cwd !== undefined ? { cwd: nonEmpty('--cwd', values.cwd) } : {}), json: values.json ?? false } };
  }
  if (first === 'report') return { name: 'report', args: reportArguments(rest) };
  if (first === 'fork') return { name: 'fork', args: forkArguments(rest, input) };
  if (first === 'script') return { name: 'script', args: scriptArguments(rest, input) };
  if (first === 'open') return { name: 'open', args: openArguments(rest, input) };
  return { name: 'run', args: runArguments(rest, input) };
}

function reportArguments(argv: readonly string[]): ReportArguments {
  const { values, positionals } = parse(argv, reportOptions, 'report');
  if (positionals.length === 0) throw new UsageError('report needs a trace file (written by loopchart run --trace)');
  if (positionals.length > 1) throw new UsageError(`report takes one trace file, got ${positionals.length} arguments`);
  return { traceFile: positionals[0]!, ...(values.output !== undefined ? { output: nonEmpty('--output', values.output) } : {}) };
}

const placeOptions = { session: { type: 'string' }, pg: { type: 'string' } } as const;
const forkOwnOptions = { at: { type: 'string' }, prompt: { type: 'string' }, ...placeOptions, json: { type: 'boolean' } } as const;
const scriptOptions = { at: { type: 'string' }, output: { type: 'string', short: 'o' }, ...placeOptions, help: { type: 'boolean', short: 'h' } } as const;

/** The long names of `fork`'s own options (with `--prompt` it takes `run`'s too). */
export const forkOptionNames: readonly string[] = Object.keys(forkOwnOptions);

/** The long names of `script`'s options. */
export const scriptOptionNames: readonly string[] = Object.keys(scriptOptions);

/** The session named first, before any option. */
function leadingSessionId(argv: readonly string[], command: string): [string, string[]] {
  const [first, ...rest] = argv;
  if (first === undefined || first.startsWith('-')) throw new UsageError(`${command} needs the session's id first: loopchart ${command} SESSION --at N …`);
  if (sessionIdProblem(first) !== undefined) throw new UsageError(`${command} takes a session id (${SESSION_ID_RULE}), got "${first}"`);
  return [first, rest];
}

/** `--session DIR` (or LOOPCHART_SESSION_DIR) or `--pg URL`: exactly one place. */
function sessionPlace(values: { session?: string; pg?: string }, input: CommandLineContext, command: string): SessionPlace {
  if (values.session !== undefined && values.pg !== undefined) throw new UsageError('--session DIR and --pg URL both say where the session is: give one of them');
  if (values.pg !== undefined) {
    if (!/^postgres(ql)?:\/\//.test(values.pg)) throw new UsageError(`--pg takes a postgres:// URL, got "${values.pg}"`);
    return { pg: values.pg };
  }
  const dir = values.session ?? (input.sessionDirFromEnv !== undefined && input.sessionDirFromEnv !== '' ? input.sessionDirFromEnv : undefined);
  if (dir === undefined) throw new UsageError(`${command} needs --session DIR (or LOOPCHART_SESSION_DIR) or --pg URL: where the session is kept`);
  return { dir: nonEmpty('--session', dir) };
}

/**
 * `fork SESSION --at N [--prompt TEXT] [--session DIR | --pg URL] [--json]`. With `--prompt`, the
 * rest is `run`'s options for the run on (`--model`, `--tools`, `--yes`, …).
 */
function forkArguments(argv: readonly string[], input: CommandLineContext): ForkArguments {
  const [sessionId, rest] = leadingSessionId(argv, 'fork');
  const own: Record<string, string | boolean> = {};
  const others: string[] = [];
  for (let index = 0; index < rest.length; index++) {
    const arg = rest[index]!;
    const [name, inline] = arg.startsWith('--') ? [arg.slice(2).split('=')[0]!, arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : undefined] : [undefined, undefined];
    if (name === 'json') own.json = true;
    else if (name === 'at' || name === 'prompt' || name === 'pg' || name === 'session') {
      const value = inline ?? rest[++index];
      if (value === undefined) throw new UsageError(`--${name} needs a value`);
      own[name] = value;
    } else others.push(arg);
  }
  if (own.at === undefined) throw new UsageError('fork needs --at N: the checkpoint to fork at (loopchart script or openSessionRecord lists them)');
  const at = positiveInteger('--at', String(own.at));
  const place = sessionPlace({ ...(own.session !== undefined ? { session: String(own.session) } : {}), ...(own.pg !== undefined ? { pg: String(own.pg) } : {}) }, input, 'fork');
  const json = own.json === true;
  if (own.prompt === undefined) {
    if (others.length > 0) {
      throw new UsageError(`fork takes ${others[0]} only with --prompt (the options of the run on from the fork); without --prompt it takes --at, --session or --pg, and --json`);
    }
    return { sessionId, at, place, json };
  }
  const prompt = nonEmpty('--prompt', String(own.prompt));
  if (others.some((arg) => arg === '--record' || arg.startsWith('--record=') || arg === '--resume' || arg.startsWith('--resume=') || arg === '--continue' || arg === '-c')) {
    throw new UsageError('fork --prompt runs on in the fork: --record, --resume and --continue do not apply');
  }
  // The run on goes through run's own parser: its options, checks and messages.
  const run = runArguments([...others, ...(json ? ['--json'] : []), '--', prompt], { ...input, stdinIsPiped: false });
  return { sessionId, at, place, prompt, run, json };
}

/** `script SESSION [--at N] -o FILE [--session DIR | --pg URL]`. */
function scriptArguments(argv: readonly string[], input: CommandLineContext): ScriptArguments {
  const [sessionId, rest] = leadingSessionId(argv, 'script');
  const { values, positionals } = parse(rest, scriptOptions, 'script');
  if (positionals.length > 0) throw new UsageError(`script takes one session, got also "${positionals[0]}"`);
  if (values.output === undefined) throw new UsageError('script needs -o FILE: where to write the script (.yaml, .yml or .json)');
  const output = nonEmpty('--output', values.output);
  if (!/\.(ya?ml|json)$/i.test(output)) throw new UsageError(`-o ${output}: a script file ends in .yaml, .yml or .json (that says which to write)`);
  return {
    sessionId,
    ...(values.at !== undefined ? { at: positiveInteger('--at', values.at) } : {}),
    output,
    place: sessionPlace(values, input, 'script'),
  };
}

function openArguments(argv: readonly string[], input: CommandLineContext): OpenArguments {
  const { values, positionals } = parse(argv, openOptions, 'open');
  if (positionals.length === 0) throw new UsageError('open needs a session id (loopchart run --session DIR prints it)');
  if (positionals.length > 1) throw new UsageError(`open takes one session id, got ${positionals.length} arguments`);
  const id = positionals[0]!;
  if (sessionIdProblem(id) !== undefined) throw new UsageError(`open takes a session id (${SESSION_ID_RULE}), got "${id}"`);
  if (values.session !== undefined && values.pg !== undefined) throw new UsageError('--session DIR and --pg URL both name the store; give one of them');
  const fromEnv = input.sessionDirFromEnv !== undefined && input.sessionDirFromEnv !== '' ? input.sessionDirFromEnv : undefined;
  const session = values.pg === undefined ? (values.session ?? fromEnv) : undefined;
  if (values.pg === undefined && session === undefined) throw new UsageError('open needs the store the session is in: --session DIR (or LOOPCHART_SESSION_DIR) or --pg URL');
  if (values.pg !== undefined && !/^postgres(ql)?:\/\//.test(values.pg)) throw new UsageError(`--pg takes a postgres:// URL, got "${values.pg}"`);
  const forkOptions = ['model', 'base-url', 'api-key-env', 'tools', 'cwd', 'yes', 'system'] as const;
  const given = forkOptions.find((name) => values[name] !== undefined);
  if (values.inspect && given !== undefined) throw new UsageError(`--${given} is for the forks the page runs; --inspect shows the session in the Stately inspector, which makes none`);
  const tools = values.tools !== undefined ? toolList(values.tools) : undefined;
  if (tools?.includes('bash')) throw new UsageError('--tools: the forks loopchart open runs have no bash (it would run unsandboxed); run a fork with bash through loopchart run --resume');
  return {
    sessionId: id,
    ...(session !== undefined ? { session: nonEmpty(values.session !== undefined ? '--session' : 'LOOPCHART_SESSION_DIR', session) } : {}),
    ...(values.pg !== undefined ? { pg: values.pg } : {}),
    port: values.port !== undefined ? listenPort(values.port) : ANY_PORT,
    inspect: values.inspect ?? false,
    ...(values.model !== undefined ? { model: parseModelSpec(values.model) } : {}),
    ...(values['base-url'] !== undefined ? { baseURL: baseURL(values['base-url']) } : {}),
    ...(values['api-key-env'] !== undefined ? { apiKeyEnv: envName(values['api-key-env']) } : {}),
    ...(tools !== undefined ? { tools } : {}),
    ...(values.cwd !== undefined ? { cwd: nonEmpty('--cwd', values.cwd) } : {}),
    yes: values.yes ?? false,
    ...(values.system !== undefined ? { system: nonEmpty('--system', values.system) } : {}),
  };
}

function listenPort(text: string): number {
  if (!/^\d+$/.test(text) || Number(text) > 65_535) throw new UsageError(`--port takes a port from 0 to 65535, got "${text}"`);
  return Number(text);
}

/** What the command line is read with, besides its words. */
export interface CommandLineContext {
  /** `run` without a script or prompt reads the prompt from stdin, as `run -` does. */
  stdinIsPiped?: boolean;
  /** `LOOPCHART_SESSION_DIR`: the session directory when `--session` is not given. */
  sessionDirFromEnv?: string;
}

function runArguments(argv: readonly string[], input: CommandLineContext): RunArguments {
  const { values, positionals } = parse(withInspectValue(argv), runOptions, 'run');
  const continuing = values.resume !== undefined || values.continue === true;
  if (positionals.length === 0 && !continuing) {
    if (!input.stdinIsPiped) throw new UsageError('run needs a script file or a prompt (or - to read the prompt from stdin)');
    positionals.push('-');
  }
  if (positionals.length > 1) {
    throw new UsageError(`run takes one script file or one prompt, got ${positionals.length} arguments (quote a prompt that has spaces)`);
  }
  if (values.json && values.events) throw new UsageError('--json and --events both claim stdout; choose one');
  if (values['no-session'] && values.session !== undefined) throw new UsageError('--session DIR keeps the session and --no-session keeps none: give one of them');
  const fromEnv = input.sessionDirFromEnv !== undefined && input.sessionDirFromEnv !== '' ? input.sessionDirFromEnv : undefined;
  const session = values['no-session'] ? undefined : (values.session ?? fromEnv);
  if (values.resume !== undefined && values.continue) throw new UsageError('--resume ID and --continue both choose the session to continue; give one of them');
  if (continuing && session === undefined) {
    throw new UsageError(`${values.continue ? '--continue' : '--resume'} needs --session DIR (or LOOPCHART_SESSION_DIR), the directory the session is kept in`);
  }
  if (values['inspect-wait'] && values.inspect === undefined) throw new UsageError('--inspect-wait needs --inspect');
  if (values['no-sandbox'] && values['allow-network']) {
    throw new UsageError('--allow-network opens the sandbox to the network, and --no-sandbox turns the sandbox off: give one of them');
  }
  if (values['structured-outputs'] && values['output-schema'] === undefined) {
    throw new UsageError("--structured-outputs says how to send --output-schema's schema: give --output-schema FILE too");
  }
  if (values.yes && values['permission-mode'] === 'deny') throw new UsageError('--yes approves the calls that --permission-mode deny denies: give one of them');
  if (values['reasoning-effort'] !== undefined && values['thinking-budget'] !== undefined) {
    throw new UsageError('--reasoning-effort and --thinking-budget both set how much the model thinks; give one of them');
  }
  if (values.system !== undefined && values['system-file'] !== undefined) {
    throw new UsageError('--system and --system-file both give the system prompt; choose one (--append-system adds to it)');
  }
  if (continuing && values.record !== undefined) {
    throw new UsageError(`--record cannot be combined with ${values.continue ? '--continue' : '--resume'}: a recording replays from an empty history, and a resumed session has one`);
  }
  return {
    ...(positionals[0] !== undefined ? { target: positionals[0] } : {}),
    ...(values.model !== undefined ? { model: parseModelSpec(values.model) } : {}),
    ...(values['base-url'] !== undefined ? { baseURL: baseURL(values['base-url']) } : {}),
    ...(values['api-key-env'] !== undefined ? { apiKeyEnv: envName(values['api-key-env']) } : {}),
    ...(values.tools !== undefined ? { tools: toolList(values.tools) } : {}),
    ...(values.cwd !== undefined ? { cwd: nonEmpty('--cwd', values.cwd) } : {}),
    ...(values['max-steps'] !== undefined ? { maxSteps: positiveInteger('--max-steps', values['max-steps']) } : {}),
    ...(values.timeout !== undefined ? { timeout: timerMs('--timeout', values.timeout) } : {}),
    ...(values['max-cost'] !== undefined ? { maxCost: dollars('--max-cost', values['max-cost']) } : {}),
    yes: values.yes ?? false,
    ...(values['allow-insecure-key'] ? { allowInsecureKey: true } : {}),
    output: values.json ? 'json' : values.events ? 'events' : 'human',
    noColor: values['no-color'] ?? false,
    ...(values.trace !== undefined ? { trace: nonEmpty('--trace', values.trace) } : {}),
    ...(values.report !== undefined ? { report: nonEmpty('--report', values.report) } : {}),
    ...(values.record !== undefined ? { record: nonEmpty('--record', values.record) } : {}),
    ...(session !== undefined ? { session: nonEmpty(values.session !== undefined ? '--session' : 'LOOPCHART_SESSION_DIR', session) } : {}),
    ...(values.resume !== undefined ? { resume: sessionId(values.resume) } : {}),
    ...(values.continue ? { continueLatest: true } : {}),
    ...(values.inspect !== undefined ? { inspectPort: port(values.inspect) } : {}),
    ...(values['inspect-wait'] ? { inspectWait: true } : {}),
    ...(values.mcp !== undefined ? { mcp: nonEmpty('--mcp', values.mcp) } : {}),
    ...(values['output-schema'] !== undefined ? { outputSchema: nonEmpty('--output-schema', values['output-schema']) } : {}),
    ...(values['structured-outputs'] ? { structuredOutputs: true } : {}),
    ...(values['no-sandbox'] ? { noSandbox: true } : {}),
    ...(values['allow-network'] ? { allowNetwork: true } : {}),
    ...(values['pass-env'] !== undefined ? { passEnv: values['pass-env'].map((name) => envName(name, '--pass-env')) } : {}),
    ...(values.system !== undefined ? { system: nonEmpty('--system', values.system) } : {}),
    ...(values['system-file'] !== undefined ? { systemFile: nonEmpty('--system-file', values['system-file']) } : {}),
    ...(values['append-system'] !== undefined ? { appendSystem: nonEmpty('--append-system', values['append-system']) } : {}),
    ...(values['agents-md'] ? { agentsMd: true } : {}),
    ...(values.allow !== undefined ? { allow: values.allow.map((rule) => permissionRule('--allow', rule)) } : {}),
    ...(values.deny !== undefined ? { deny: values.deny.map((rule) => permissionRule('--deny', rule)) } : {}),
    ...(values['permission-mode'] !== undefined ? { permissionMode: permissionMode(values['permission-mode']) } : {}),
    ...(values['reasoning-effort'] !== undefined ? { reasoningEffort: reasoningEffort(values['reasoning-effort']) } : {}),
    ...(values['thinking-budget'] !== undefined ? { thinkingBudget: positiveInteger('--thinking-budget', values['thinking-budget']) } : {}),
  };
}

/**
 * `--inspect` takes its port only as `--inspect=PORT`: a bare `--inspect` (before a `--`) becomes `--inspect=`,
 * so that the argument after it stays the prompt or script.
 */
function withInspectValue(argv: readonly string[]): string[] {
  const end = argv.indexOf('--');
  return argv.map((arg, index) => {
    if (arg !== '--inspect' || (end >= 0 && index > end)) return arg;
    if (/^\d+$/.test(argv[index + 1] ?? '')) throw new UsageError(`write the port as --inspect=${argv[index + 1]}`);
    return '--inspect=';
  });
}

function permissionRule(option: string, text: string): string {
  const problem = permissionRuleProblem(text);
  if (problem !== undefined) throw new UsageError(`${option}: ${problem}`);
  return text.trim();
}

function permissionMode(text: string): PermissionMode {
  if (!permissionModes.includes(text as PermissionMode)) throw new UsageError(`--permission-mode takes one of ${permissionModes.join(', ')}, got "${text}"`);
  return text as PermissionMode;
}

function reasoningEffort(text: string): ReasoningEffort {
  if (!reasoningEfforts.includes(text as ReasoningEffort)) throw new UsageError(`--reasoning-effort takes one of ${reasoningEfforts.join(', ')}, got "${text}"`);
  return text as ReasoningEffort;
}

function port(text: string): number {
  if (text === '') return ANY_PORT;
  if (!/^\d+$/.test(text) || Number(text) > 65_535) throw new UsageError(`--inspect takes a port from 0 to 65535 (--inspect=9229), got "${text}"`);
  return Number(text);
}

function sessionId(text: string): string {
  if (sessionIdProblem(text) !== undefined) throw new UsageError(`--resume takes a session id (${SESSION_ID_RULE}), got "${text}"`);
  return text;
}

function parse<Options extends NonNullable<ParseArgsConfig['options']>>(argv: readonly string[], options: Options, command: string) {
  try {
    return parseArgs({ args: [...argv], options, allowPositionals: true, strict: true });
  } catch (error) {
    const code = (error as { code?: string }).code;
    const unknown = code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /'(-{1,2}[^']+)'/.exec(error instanceof Error ? error.message : '')?.[1] : undefined;
    if (unknown !== undefined) {
      const names = Object.keys(options);
      const closest = closestName(unknown.replace(/^-+/, '').split('=')[0]!, names);
      throw new UsageError(`${command} has no option ${unknown}${closest !== undefined ? `; did you mean --${closest}?` : ''}`);
    }
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

/** `--help` or `-h` anywhere before a `--` separator. */
function asksForHelp(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).some((arg) => arg === '--help' || arg === '-h');
}

function helpTopic(argv: readonly string[]): HelpTopic {
  const [topic, extra] = argv;
  if (extra !== undefined) throw new UsageError('help takes at most one command');
  if (topic === undefined) return 'main';
  const topics = ['run', 'report', 'open', 'chart', 'config', 'fork', 'script'] as const;
  if ((topics as readonly string[]).includes(topic)) return topic as (typeof topics)[number];
  throw new UsageError(`no help for "${topic}"; commands: ${topics.join(', ')}`);
}

function toolList(text: string): BuiltinToolName[] {
  const names = text.split(',').map((name) => name.trim()).filter(Boolean);
  const unknown = names.filter((name) => !builtinToolNames.includes(name as BuiltinToolName));
  if (unknown.length > 0) throw new UsageError(`--tools: unknown tool ${unknown.join(', ')}; known: ${builtinToolNames.join(', ')}`);
  return [...new Set(names)] as BuiltinToolName[];
}

function positiveInteger(option: string, text: string): number {
  if (!/^\d+$/.test(text) || Number(text) < 1 || !Number.isSafeInteger(Number(text))) {
    throw new UsageError(`${option} takes a positive whole number, got "${text}"`);
  }
  return Number(text);
}

/** A time limit in ms a timer can wait (at most 2^31 - 1 ms, about 24.8 days: a longer one would fire at once). */
function timerMs(option: string, text: string): number {
  const ms = positiveInteger(option, text);
  if (ms > MAX_TIMER_MS) throw new UsageError(`${option} takes at most ${MAX_TIMER_MS} ms (about 24.8 days), got "${text}"`);
  return ms;
}

function dollars(option: string, text: string): number {
  const amount = Number(text.replace(/^\$/, ''));
  if (!/^\$?(\d+(\.\d*)?|\.\d+)$/.test(text) || !(amount > 0)) throw new UsageError(`${option} takes an amount of US dollars greater than 0 (--max-cost 0.50), got "${text}"`);
  return amount;
}

function baseURL(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`--base-url "${text}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--base-url must be an http or https URL, got "${text}"`);
  return text;
}

function envName(text: string, flag = '--api-key-env'): string {
  if (!ENV_VARIABLE_NAME.test(text)) throw new UsageError(`${flag} takes the name of an environment variable, got "${text}"`);
  return text;
}

function nonEmpty(option: string, text: string): string {
  if (text.trim() === '') throw new UsageError(`${option} needs a value`);
  return text;
}
