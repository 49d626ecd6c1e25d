import { builtinToolNames } from '../tools/index.js';
import { EXPECTATION_FAILED, exitCodeByOutcome, USAGE_ERROR } from './exit-codes.js';

export type HelpTopic = 'main' | 'run' | 'chart';

/** The exit-code table, one code per line, as `--help` shows it. */
export function exitCodeLines(): string[] {
  const byCode = new Map<number, string[]>();
  const add = (code: number, meaning: string) => byCode.set(code, [...(byCode.get(code) ?? []), meaning]);
  for (const [outcome, code] of Object.entries(exitCodeByOutcome)) add(code, outcome);
  add(USAGE_ERROR, 'usage error or invalid script');
  add(EXPECTATION_FAILED, "the script's expect block failed");
  return [...byCode.entries()].sort(([a], [b]) => a - b).map(([code, meanings]) => `  ${String(code).padStart(3)}  ${meanings.join(', ')}`);
}

const MAIN = `loopchart — run an LLM agent's tool loop as an XState statechart

Usage:
  loopchart run <script.yaml | "prompt"> [options]   run an agent; see loopchart run --help
  loopchart chart                                   print the agent statechart as Mermaid
  loopchart help [run | chart]                      help for a command
  loopchart --help                                  this help

Exit codes of loopchart run:
${exitCodeLines().join('\n')}

Full documentation: docs/cli.md`;

const RUN = `Usage: loopchart run <script.yaml | "prompt"> [options]

Runs an agent's tool loop and exits with a code that says how the run ended.

  <script>   an existing .yaml, .yml or .json file: the prompt, tools, limits,
             files to create, the scripted model's turns and an expect block
  "prompt"   any other argument is the prompt itself; it needs --model

Model (default: the script's scripted model, offline):
  --model PROVIDER:ID   openai:<id> or openai-compatible:<id>; with a script, this
                        model answers instead and the script's turns are ignored
  --base-url URL        the API's base URL, e.g. http://127.0.0.1:11434/v1
                        (required for openai-compatible; openai defaults to
                        OPENAI_BASE_URL, else https://api.openai.com/v1)
  --api-key-env NAME    the environment variable holding the API key
                        (default OPENAI_API_KEY). The key is never printed and is
                        removed from the environment that tools (bash) inherit

Tools and limits:
  --tools LIST          built-in tools, comma-separated: ${builtinToolNames.join(',')}
                        (default: the script's list, else all but bash)
  --cwd DIR             the tools' workspace root, an existing directory (default:
                        a new temporary directory for a script, the current
                        directory for a prompt); a script's files are written into it
  --max-steps N         LLM calls per run (default: the script's maxSteps, else 25)
  -y, --yes             approve every tool call that asks for approval; without it
                        a terminal asks, and without a terminal such calls are
                        denied (the model is told). A prompt run asks before
                        write, edit and bash; a script asks per its approval rules

Output (stdout carries the run, stderr everything else):
  (default)             assistant text streams to stdout; tool activity, a spinner
                        for long tools and a summary go to stderr
  --json                stdout: only the final RunResult, as one JSON object
  --events              stdout: only the AgentEvents, as NDJSON (one per line)
  --no-color            no colours and no spinner (NO_COLOR is honoured too;
                        both are off anyway when stderr is not a terminal)
  -h, --help            this help

Ctrl+C aborts the run cleanly (outcome aborted, exit 130; --json is still
printed); a second Ctrl+C exits at once.

Exit codes:
${exitCodeLines().join('\n')}`;

const CHART = `Usage: loopchart chart

Prints the agent statechart as a Mermaid stateDiagram-v2 on stdout: every
state, the actor each state invokes, and every transition with its event,
guard and, for transitions that end the run, the outcome.

Options:
  -h, --help   this help`;

export function helpText(topic: HelpTopic): string {
  switch (topic) {
    case 'main':
      return MAIN;
    case 'run':
      return RUN;
    case 'chart':
      return CHART;
  }
}
