import { fileURLToPath } from 'node:url';
import { builtinToolNames } from '../tools/index.js';
import { EXPECTATION_FAILED, exitCodeByOutcome, exitCodeBySignal, USAGE_ERROR } from './exit-codes.js';

export type HelpTopic = 'main' | 'run' | 'report' | 'chart' | 'config' | 'fork' | 'script' | 'open';

/** The exit-code table, one code per line, as `--help` shows it. */
export function exitCodeLines(): string[] {
  const byCode = new Map<number, string[]>();
  const add = (code: number, meaning: string) => byCode.set(code, [...(byCode.get(code) ?? []), meaning]);
  for (const [outcome, code] of Object.entries(exitCodeByOutcome)) add(code, outcome);
  add(USAGE_ERROR, 'usage error or invalid script');
  add(EXPECTATION_FAILED, "the script's expect block failed");
  add(exitCodeBySignal.SIGHUP, 'aborted by SIGHUP');
  add(exitCodeBySignal.SIGPIPE, 'stdout or stderr closed (EPIPE)');
  add(exitCodeBySignal.SIGTERM, 'aborted by SIGTERM');
  return [...byCode.entries()].sort(([a], [b]) => a - b).map(([code, meanings]) => `  ${String(code).padStart(3)}  ${meanings.join(', ')}`);
}

/** The installed package's directory (help.ts sits in src/cli/, help.js in dist/cli/): it ships docs/ and examples/. */
const packageDir = fileURLToPath(new URL('../../', import.meta.url));

const MAIN = `loopchart — run an LLM agent's tool loop as an XState statechart

Usage:
  loopchart run <script.yaml | "prompt"> [options]   run an agent; see loopchart run --help
  loopchart report <trace.json> [-o report.html]    an HTML report of a saved run trace
  loopchart open <session> --session DIR | --pg URL  play a session back in a local page, fork it
  loopchart chart                                   print the session and run statecharts as Mermaid
  loopchart config [--cwd DIR] [--json]             the default model and options in force
  loopchart fork <session> --at N [--prompt TEXT]   a new session from checkpoint N of another
  loopchart script <session> -o case.yaml           a session as a script that replays it offline
  loopchart help [command]                          help for a command
  loopchart --help                                  this help
  loopchart --version                               the installed version

Exit codes of loopchart run:
${exitCodeLines().join('\n')}

Try it offline, on the scripted model: loopchart run ${packageDir}examples/demo.yaml
Full documentation: ${packageDir}docs/cli.md`;

const RUN = `Usage: loopchart run <script.yaml | "prompt"> [options]

Runs an agent's tool loop and exits with a code that says how the run ended.

  <script>   an existing .yaml, .yml or .json file: the prompt, tools, limits,
             files to create, the scripted model's turns and an expect block
  "prompt"   any other argument is the prompt itself; it needs --model
  -          read the prompt from stdin (also when no argument is given and
             stdin is a pipe: echo "Fix the test" | loopchart run --model …)

Model (default: the script's scripted model, offline):
  --model PROVIDER:ID   openai:<id> (key in OPENAI_API_KEY), anthropic:<id>
                        (ANTHROPIC_API_KEY), google:<id> (GOOGLE_GENERATIVE_AI_API_KEY)
                        or openai-compatible:<id> (any OpenAI-style server; its
                        reasoning_content is kept); with a script, this model
                        answers instead and the script's turns are ignored
  --base-url URL        the API's base URL, e.g. http://127.0.0.1:11434/v1
                        (required for openai-compatible; the others default to
                        their provider's API)
  --api-key-env NAME    the environment variable holding the API key instead
                        of the provider's own (openai-compatible sends a key
                        only from this one). The key is never printed; it and
                        every other provider key (*_API_KEY) are removed from the
                        environment that tools (bash) inherit, in every run
  --allow-insecure-key  send the key over plain http to a host that is not
                        this machine (refused otherwise)
  --reasoning-effort E  low, medium or high: the AI SDK's reasoning setting,
                        which each provider maps for its model (reasoning_effort,
                        Anthropic effort or thinking, Google thinking level/budget)
  --thinking-budget N   tokens the model may think for (Anthropic, Google); not
                        with --reasoning-effort

System prompt (default: the script's instructions; none for a prompt):
  --system TEXT         the system prompt, instead of the script's instructions
  --system-file FILE    the same, read from FILE
  --append-system TEXT  added at the end of the system prompt (after the above
                        and the project's instructions)
  --agents-md           add AGENTS.md and CLAUDE.md of the workspace (those that
                        exist; neither is an error) to the system prompt

Tools and limits:
  --tools LIST          built-in tools, comma-separated: ${builtinToolNames.join(',')}
                        (default: the script's list, else all but bash)
  --cwd DIR             the tools' workspace root, an existing directory (default:
                        a new temporary directory for a script, the current
                        directory for a prompt); a script's files are written into it
  --max-steps N         LLM calls per run (default: the script's maxSteps, else 25)
  --timeout MS          end the run after MS milliseconds (outcome timeout, exit 7)
  --max-cost USD        end the run at the step boundary after its cost (list
                        prices) goes over USD dollars; needs a model with a price
  -y, --yes             approve every tool call that asks for approval; without it
                        a terminal asks, and without a terminal such calls are
                        denied (the model is told). A prompt run asks before
                        write, edit and bash; a script asks per its approval rules
  --allow RULE          calls RULE matches run without asking (repeatable):
                        a tool-name glob (read, mcp__fs__*), bash(PATTERN) on
                        its command (bash(git *), bash(npm test:*); only a
                        simple command, not one with ; & | < > or $( ),
                        or a file tool on its path (write(src/**))
  --deny RULE           calls RULE matches are denied (repeatable; before --allow)
  --permission-mode M   ask (default: the rules above), allow-edits (write and
                        edit run without asking), deny (every call that would
                        ask is denied, even on a terminal)
  --mcp FILE            add the tools of the MCP servers in FILE, an mcpServers
                        JSON file as Claude Desktop, Claude Code and Cursor use;
                        named mcp__<server>__<tool>, they ask for approval (unless
                        a script's rule names them); the servers stop when the
                        run ends. Stdio servers get only their env entry and
                        HOME, LOGNAME, PATH, SHELL, TERM, USER: no API keys;
                        they run in the sandbox, with network
  --allow-network       bash's sandbox keeps the network, as a script's
                        allowNetwork: true does; without either, bash has none
  --pass-env NAME       bash gets NAME although it looks like a credential
                        (repeatable). Without it, bash's environment leaves
                        out names with KEY, SECRET, TOKEN, PASSWORD, PASSWD,
                        PASSPHRASE or CREDENTIAL and URLs with a password
                        (GITHUB_TOKEN, PGPASSWORD, DATABASE_URL=postgres://u:pw@…);
                        a provider key is never passed
  --no-sandbox          run bash and stdio MCP servers unconfined, with your
                        rights. Without it they run in bubblewrap where it works
                        (Linux): only the workspace and a private /tmp are
                        writable and no other process (nor its environment) is
                        visible. Where there is none, this is said on stderr,
                        and a real model may not run bash without --no-sandbox
  --output-schema FILE  a JSON Schema (of an object) the final answer must match:
                        sent as the response format, the answer validated and
                        given as "output" in --json; a mismatch is asked again,
                        then fails the run (invalid-output). An openai-compatible
                        model gets the schema in its instructions (and a warning
                        says so) unless --structured-outputs is given
  --structured-outputs  the openai-compatible server takes a JSON schema as its
                        response format (json_schema), as OpenAI, vLLM,
                        llama.cpp, Ollama and LM Studio do: --output-schema's
                        schema is sent that way instead of in the instructions

Output (stdout carries the run, stderr everything else):
  (default)             assistant text streams to stdout; tool activity, a spinner
                        naming what runs (the model, a tool, a compaction) and a
                        summary (tokens, cost, time) go to stderr
  --json                stdout: only the final RunResult, as one JSON object
  --events              stdout: only the AgentEvents, as NDJSON (one per line)
  --no-color            no colours and no spinner (NO_COLOR turns off colours;
                        colours are off when stderr is not a terminal unless
                        FORCE_COLOR is set; the spinner draws on a terminal only)

After the run (files are written whatever the outcome; of a script with
several prompts, the last run's):
  --trace FILE          the run's trace as JSON: states, transitions, steps,
                        tool calls, retries, compactions, hooks, with timings
  --report FILE         the run's trace as one self-contained HTML page (the
                        statechart with what the run did highlighted, a
                        timeline, the steps); see also loopchart report
  --record FILE         the model's answers, recorded, as a script (YAML, with
                        the prompt, the tools and the limits): loopchart run FILE
                        replays the run offline, without a model

Sessions:
  --session DIR         keep the conversation in DIR (one JSONL file per
                        session; default LOOPCHART_SESSION_DIR when set); a new
                        session's id is printed on stderr, and is in --json
                        (sessionId), run-start events and the summary
  --resume ID           continue session ID from --session DIR: a run it was in
                        the middle of is finished first; then the prompt or
                        script (optional here) runs on its history
  -c, --continue        continue the session of --session DIR written to last
  --no-session          keep no session, even with LOOPCHART_SESSION_DIR set

Watching:
  --inspect[=PORT]      serve the Stately inspector on 127.0.0.1 (any free port
                        without =PORT) and print the page to open on stderr; it
                        closes when the run ends
  --inspect-wait        with --inspect: start the run only once the page is open

  -h, --help            this help

Ctrl+C aborts the run cleanly (outcome aborted, exit 130; --json is still
printed); a second Ctrl+C exits at once. SIGTERM does the same, exit 143, and
SIGHUP, exit 129; a closed stdout or stderr (| head -1) too, quietly, exit 141.

Exit codes:
${exitCodeLines().join('\n')}`;

const REPORT = `Usage: loopchart report <trace.json> [-o report.html]

Renders a saved run trace as one self-contained HTML page: the outcome, the
statechart with the states the run visited and the transitions it took
highlighted, a timeline of its states, each step with its tool calls, and the
retries, compactions and hooks. The page loads nothing from the network.

  <trace.json>       a trace written by loopchart run --trace (or the RunResult
                     of loopchart run --json, which carries one)

Options:
  -o, --output FILE  write the page to FILE (default: stdout)
  -h, --help         this help

Exit codes: 0 written; 2 usage error, or a file that is not a run trace (each
problem is named); 1 the page could not be written.`;

const OPEN = `Usage: loopchart open <session> (--session DIR | --pg URL) [options]

Serves a page on 127.0.0.1 that plays a stored session back: the statechart
with the active state lit, a timeline with step and run boundaries, play,
pause, step back and forward, jump to any event (keys: ← →, space, Home, End),
and beside it the step's text, tool calls, usage and cost, the context the
model saw at that point and the stored messages. The page loads nothing from
the network and follows the session as it grows (it polls every second).
"Run on from here" forks the session at the selected point (forkSession; the
original is not touched) and runs the fork on, optionally with another
message, model, instructions or an edited message; the fork opens in the page.

  <session>          the session's id (loopchart run --session prints it)

Store:
  --session DIR      the file store (default LOOPCHART_SESSION_DIR when set)
  --pg URL           a Postgres store (postgres://…; needs the pg package)

Options:
  --port N           listen on 127.0.0.1:N (default: any free port)
  --inspect          replay the session into the Stately inspector instead
                     (its page embeds https://stately.ai/inspect: online)

Forks from the page run with (all optional):
  --model PROVIDER:ID   the model (the page may name another); without one
                        the page forks but does not run on
  --base-url URL        as for loopchart run
  --api-key-env NAME    as for loopchart run
  --tools LIST          built-in tools, comma-separated (default all but bash;
                        bash is refused: it would run unsandboxed)
  --cwd DIR             the tools' workspace (default the current directory)
  -y, --yes             approve the calls that ask (write, edit); else denied
  --system TEXT         the system prompt, unless the page gives one
  -h, --help            this help

Ctrl+C stops the server and aborts the forks still running. Exit codes: 0
stopped; 2 usage error or no such session; 1 anything else.`;

const CHART = `Usage: loopchart chart

Prints the session statechart, with the run statechart it invokes drawn inside
its live state, as one Mermaid stateDiagram-v2 on stdout: every state, the
actor each state invokes, and every transition with its event, guard and, for
transitions that end the run, the outcome.

Options:
  -h, --help   this help`;

const CONFIG = `Usage: loopchart config [--cwd DIR] [--json]

Shows the defaults loopchart run starts from for a real model, each with the
place it came from, and the places looked for, each over the one before:

  ~/.config/loopchart/config.json   (or $XDG_CONFIG_HOME/loopchart/config.json)
  .loopchart.json                    in the workspace (--cwd, else here)
  LOOPCHART_MODEL                    the model, as provider:model-id

A config file is JSON: model, providers (per provider: baseURL, apiKeyEnv),
tools, maxSteps, timeout, permissionMode, allow, deny, agentsMd, appendSystem,
reasoningEffort, thinkingBudget, and in yours only trustedWorkspaces. Flags win
over it, a script's own fields too; a script run on its own scripted model uses
none of it. An invalid file is an error naming the file and field. A
workspace's file may not set a provider's baseURL or apiKeyEnv, allow, or
permissionMode allow-edits unless your config lists it in trustedWorkspaces.

Options:
  --cwd DIR    the workspace whose .loopchart.json applies
  --json       the settings, their sources and the files as one JSON object
  -h, --help   this help`;

const FORK = `Usage: loopchart fork <session> --at N [--prompt TEXT] [--session DIR | --pg URL] [--json]

Starts a new session from checkpoint N of another: the history as it was there
and the machine's state at that step boundary. The original is not touched.
Prints the new session's id on stdout (--json: an object with the id, the
checkpoint and its state).

  <session>         the id of the session to fork
  --at N            the checkpoint (1, 2, … in the order they were written;
                    openSessionRecord lists them, with their states and steps)
  --session DIR     the session is in this directory (default
                    LOOPCHART_SESSION_DIR); the fork goes there too
  --pg URL          the session is in this Postgres database (postgres://…);
                    the fork goes there too
  --prompt TEXT     run on in the fork with this message: at a checkpoint
                    between runs it starts a new run; in the middle of a run it
                    joins the history there and the run goes on, the model
                    seeing it at its next call (not at a checkpoint that waits
                    for approvals). Takes loopchart run's options (--model,
                    --tools, --yes, --json, …); see loopchart run --help
  --json            the fork (or, with --prompt, the run's result) as JSON
  -h, --help        this help

Exit codes: 0 forked (with --prompt: loopchart run's codes); 2 usage error,
or no such session or checkpoint; 1 the store failed.`;

const SCRIPT = `Usage: loopchart script <session> [--at N] -o case.yaml [--session DIR | --pg URL]

Writes a script that replays a session offline on the scripted model: its
prompts, its model turns (retried failures included), the system prompt and
step limit it ran with, the recorded results of the tools that cannot be run
again (any tool but the file tools read, write, edit, ls, glob and grep), and
an expect block from how it ended (outcome and final text). Then
loopchart run case.yaml reproduces the run, in CI, without the model.

  <session>         the id of the session
  --at N            stop at checkpoint N: the turns made before it; a script
                    cut in the middle of a run ends there with max-steps
  -o, --output FILE where to write it: .yaml or .yml for YAML, .json for JSON
  --session DIR     the session is in this directory (default
                    LOOPCHART_SESSION_DIR)
  --pg URL          the session is in this Postgres database
  -h, --help        this help

Keys in the environment (*_API_KEY) are redacted from the script. The
workspace is not recorded: give loopchart run --cwd to run the file tools on
the same files.

Exit codes: 0 written; 2 usage error, no such session or checkpoint, or a
session whose runs made no model call; 1 the store failed.`;

export function helpText(topic: HelpTopic): string {
  switch (topic) {
    case 'fork':
      return FORK;
    case 'script':
      return SCRIPT;
    case 'config':
      return CONFIG;
    case 'main':
      return MAIN;
    case 'run':
      return RUN;
    case 'report':
      return REPORT;
    case 'chart':
      return CHART;
    case 'open':
      return OPEN;
  }
}
