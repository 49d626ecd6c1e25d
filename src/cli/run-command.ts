import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createAgent } from '../agent.js';
import type { AgentEvent } from '../events.js';
import { scriptedModel } from '../models/index.js';
import type { RunResult } from '../result.js';
import { builtinTools, resolveInWorkspace, type BuiltinToolName } from '../tools/index.js';
import { EXPECTATION_FAILED, exitCodeByOutcome } from './exit-codes.js';
import { checkExpectations } from './expectations.js';
import { loadScript } from './script.js';

export interface RunCommandOptions {
  script: string;
  cwd?: string;
  maxSteps?: number;
  tools?: BuiltinToolName[];
  json: boolean;
  events: boolean;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  color: boolean;
  /** Resolves when the user asks to stop (Ctrl+C). */
  interrupted: Promise<void>;
}

/** Runs a script file on the scripted model; resolves with the process exit code. */
export async function runCommand(options: RunCommandOptions): Promise<number> {
  const script = await loadScript(options.script);
  const cwd = options.cwd ? path.resolve(options.cwd) : await mkdtemp(path.join(os.tmpdir(), 'loopchart-'));
  for (const [file, content] of Object.entries(script.files ?? {})) {
    const target = await resolveInWorkspace(cwd, file);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, content);
  }

  const paint = (code: string, text: string) => (options.color ? `\u001b[${code}m${text}\u001b[0m` : text);
  const log = (line: string) => options.stderr.write(`${line}\n`);
  if (!options.json && !options.events) log(paint('2', `workspace: ${cwd}`));

  const agent = createAgent({
    model: scriptedModel(script.turns),
    tools: builtinTools({ cwd, ...(options.tools ?? script.tools ? { tools: (options.tools ?? script.tools) as BuiltinToolName[] } : {}) }),
    ...(script.instructions !== undefined ? { instructions: script.instructions } : {}),
    ...((options.maxSteps ?? script.maxSteps) !== undefined ? { maxSteps: options.maxSteps ?? script.maxSteps } : {}),
    ...(script.toolExecution ? { toolExecution: script.toolExecution } : {}),
    ...(script.doomLoop !== undefined ? { doomLoop: script.doomLoop } : {}),
  });
  agent.events$.subscribe((event) => report(event, options, paint, log));
  void options.interrupted.then(() => agent.abort('interrupted (SIGINT)'));

  let result: RunResult | undefined;
  for (const prompt of [script.prompt].flat()) {
    result = await agent.run(prompt);
    if (result.outcome !== 'completed') break;
  }
  if (!result) throw new Error('the script has no prompt');

  if (options.json) options.stdout.write(`${JSON.stringify(result)}\n`);
  else if (!options.events) {
    log(
      paint(
        result.outcome === 'completed' ? '32' : '31',
        `\n${result.outcome} · ${result.steps} steps · ${result.toolCalls} tool calls · ${result.usage.totalTokens} tokens · ${Math.round(result.durationMs)} ms`,
      ) + (result.error ? `\n${result.error.kind}: ${result.error.message}` : ''),
    );
  }

  const failures = await checkExpectations(script.expect, result, cwd);
  if (failures.length > 0) {
    log(paint('31', `expectations failed:\n${failures.map((failure) => `  - ${failure}`).join('\n')}`));
    return EXPECTATION_FAILED;
  }
  return script.expect?.outcome !== undefined ? 0 : exitCodeByOutcome[result.outcome];
}

function report(event: AgentEvent, options: RunCommandOptions, paint: (code: string, text: string) => string, log: (line: string) => void): void {
  if (options.events) {
    options.stdout.write(`${JSON.stringify(event)}\n`);
    return;
  }
  if (options.json) return;
  switch (event.type) {
    case 'text-delta':
      options.stdout.write(event.text);
      break;
    case 'step-end':
      if (event.text.length > 0) options.stdout.write('\n');
      break;
    case 'tool-call':
      log(paint('36', `→ ${event.toolName} ${JSON.stringify(event.input)}`));
      break;
    case 'tool-result': {
      const summary = typeof event.output === 'string' ? event.output.split('\n')[0]!.slice(0, 120) : JSON.stringify(event.output).slice(0, 120);
      log(paint(event.isError ? '31' : '32', `${event.isError ? '✗' : '✓'} ${event.toolName} (${Math.round(event.durationMs)} ms) ${summary}`));
      break;
    }
    default:
      break;
  }
}
