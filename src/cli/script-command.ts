import { Document } from 'yaml';
import { isProviderKeyVariable } from '../secrets/provider-key-variables.js';
import type { ScriptArguments } from './args.js';
import { USAGE_ERROR } from './exit-codes.js';
import { checkOutputFile, writeOutputFile } from './output-files.js';
import { redact, type TextSink } from './redact.js';
import { sessionScript } from './session-script.js';
import { openSessionSource, readSessionOrFail } from './session-source.js';
import { UsageError } from './usage-error.js';

export interface ScriptCommandOptions {
  args: ScriptArguments;
  env: NodeJS.ProcessEnv;
  stdout: TextSink;
  stderr: TextSink;
}

/**
 * `loopchart script`: a session as a script file that `loopchart run` replays offline. YAML or JSON
 * by the file's extension; every provider key in the environment is redacted from it. Resolves
 * with the exit code.
 */
export async function scriptCommand({ args, env, stderr }: ScriptCommandOptions): Promise<number> {
  const secrets = Object.entries(env).flatMap(([name, value]) => (value && isProviderKeyVariable(name, undefined) ? [value] : []));
  try {
    await checkOutputFile('--output', args.output);
    const source = await openSessionSource(args.place, secrets);
    try {
      const log = await readSessionOrFail(source, args.sessionId);
      const script = sessionScript(log, args.at !== undefined ? { at: args.at } : {});
      const text = args.output.toLowerCase().endsWith('.json') ? `${JSON.stringify(script, null, 2)}\n` : yamlWithHeader(script, args);
      await writeOutputFile('--output', args.output, redact(text, secrets));
    } finally {
      await source.close();
    }
    stderr.write(`loopchart: wrote ${args.output} from session ${args.sessionId}${args.at !== undefined ? ` up to checkpoint ${args.at}` : ''} (replay it offline: loopchart run ${args.output})\n`);
    return 0;
  } catch (error) {
    const message = redact(error instanceof Error ? error.message : String(error), secrets);
    if (error instanceof UsageError) {
      stderr.write(`loopchart: ${message}\nRun loopchart script --help for usage.\n`);
      return USAGE_ERROR;
    }
    stderr.write(`loopchart: ${message}\n`);
    return 1;
  }
}

function yamlWithHeader(script: object, args: ScriptArguments): string {
  const document = new Document(script);
  document.commentBefore = [
    ` Written by loopchart script from session ${args.sessionId}${args.at !== undefined ? ` (up to checkpoint ${args.at})` : ''} on ${new Date().toISOString()}.`,
    ' Replay it offline, without the model: loopchart run <this file>',
    ' (the workspace is not recorded: give --cwd to run the file tools on the same files).',
  ].join('\n');
  return document.toString();
}
