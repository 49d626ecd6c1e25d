#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { USAGE_ERROR } from './cli/exit-codes.js';
import { runCommand } from './cli/run-command.js';
import { ScriptError } from './cli/script.js';
import { agentMachine } from './machines/agent-machine.js';
import { toMermaid } from './machines/mermaid.js';
import { builtinToolNames, type BuiltinToolName } from './tools/index.js';

const HELP = `loopchart — run an LLM agent's tool loop as an XState statechart

Usage:
  loopchart run <script.yaml> [options]   run a scripted agent (the scripted model replays the script's turns)
  loopchart chart                         print the agent statechart as Mermaid
  loopchart --help                        this help

Options for run:
  --cwd DIR          workspace root for the built-in tools (default: a new temporary directory)
  --tools LIST       built-in tools to enable, comma-separated (${builtinToolNames.join(',')})
  --max-steps N      LLM calls per run
  --json             print the final RunResult as one JSON object
  --events           print every AgentEvent as NDJSON
  --no-color         no colours (NO_COLOR is honoured too)

Exit codes: 0 completed, 1 failed, 2 usage or invalid script, 3 max-steps, 4 doom-loop,
5 context-limit, 6 content-filter, 7 timeout, 8 denied, 9 expect block failed, 130 aborted.`;

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      help: { type: 'boolean', short: 'h' },
      cwd: { type: 'string' },
      tools: { type: 'string' },
      'max-steps': { type: 'string' },
      json: { type: 'boolean' },
      events: { type: 'boolean' },
      'no-color': { type: 'boolean' },
    },
  });
  const [command, target] = positionals;
  if (values.help || command === undefined || command === 'help') {
    process.stdout.write(`${HELP}\n`);
    return command === undefined && !values.help ? USAGE_ERROR : 0;
  }
  if (command === 'chart') {
    process.stdout.write(toMermaid(agentMachine));
    return 0;
  }
  if (command !== 'run') return usage(`unknown command "${command}"`);
  if (target === undefined) return usage('run needs a script file');

  const maxSteps = values['max-steps'] === undefined ? undefined : Number(values['max-steps']);
  if (maxSteps !== undefined && (!Number.isInteger(maxSteps) || maxSteps < 1)) return usage('--max-steps takes a positive whole number');
  const tools = values.tools?.split(',').map((name) => name.trim()).filter(Boolean);
  const unknown = tools?.filter((name) => !builtinToolNames.includes(name as BuiltinToolName));
  if (unknown?.length) return usage(`unknown tool(s) ${unknown.join(', ')}; known: ${builtinToolNames.join(', ')}`);

  let interrupts = 0;
  const interrupted = new Promise<void>((resolve) => {
    process.on('SIGINT', () => {
      interrupts++;
      if (interrupts > 1) process.exit(130);
      resolve();
    });
  });
  return runCommand({
    script: target,
    ...(values.cwd !== undefined ? { cwd: values.cwd } : {}),
    ...(maxSteps !== undefined ? { maxSteps } : {}),
    ...(tools ? { tools: tools as BuiltinToolName[] } : {}),
    json: values.json ?? false,
    events: values.events ?? false,
    stdout: process.stdout,
    stderr: process.stderr,
    color: !values['no-color'] && !process.env.NO_COLOR && process.stderr.isTTY === true,
    interrupted,
  });
}

function usage(message: string): number {
  process.stderr.write(`loopchart: ${message}\nRun loopchart --help for usage.\n`);
  return USAGE_ERROR;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof ScriptError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(USAGE_ERROR);
    }
    process.stderr.write(`loopchart: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
