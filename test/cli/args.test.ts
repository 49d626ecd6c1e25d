import { closestName } from '../../src/core/closest-name.js';
import { describe, expect, it } from 'vitest';
import { parseCommandLine, runOptionNames } from '../../src/cli/args.js';
import { UsageError } from '../../src/cli/usage-error.js';

function usageError(argv: string[]): string {
  try {
    parseCommandLine(argv);
  } catch (error) {
    if (error instanceof UsageError) return error.message;
    throw error;
  }
  throw new Error(`accepted ${JSON.stringify(argv)}`);
}

describe('parseCommandLine', () => {
  it('parses every run option', () => {
    const command = parseCommandLine([
      'run',
      'Fix it',
      '--model',
      'openai-compatible:qwen2.5:7b',
      '--base-url',
      'http://127.0.0.1:11434/v1',
      '--api-key-env',
      'LOCAL_KEY',
      '--tools',
      'read, grep,bash',
      '--cwd',
      '/tmp/ws',
      '--max-steps',
      '7',
      '--yes',
      '--json',
      '--no-color',
    ]);
    expect(command).toEqual({
      name: 'run',
      args: {
        target: 'Fix it',
        model: { provider: 'openai-compatible', modelId: 'qwen2.5:7b' },
        baseURL: 'http://127.0.0.1:11434/v1',
        apiKeyEnv: 'LOCAL_KEY',
        tools: ['read', 'grep', 'bash'],
        cwd: '/tmp/ws',
        maxSteps: 7,
        yes: true,
        output: 'json',
        noColor: true,
      },
    });
  });

  it('defaults: human output, the key from the provider\'s own variable, no approvals, colour allowed', () => {
    expect(parseCommandLine(['run', 'demo.yaml'])).toEqual({
      name: 'run',
      args: { target: 'demo.yaml', yes: false, output: 'human', noColor: false },
    });
  });

  it('parses the options for traces, reports, recordings, sessions and the inspector', () => {
    const command = parseCommandLine(['run', 'demo.yaml', '--trace', 't.json', '--report', 'r.html', '--record', 'rec.yaml', '--session', '.sessions', '--inspect']);
    expect(command).toMatchObject({
      name: 'run',
      args: { target: 'demo.yaml', trace: 't.json', report: 'r.html', record: 'rec.yaml', session: '.sessions', inspectPort: 0 },
    });
    expect(parseCommandLine(['run', '--inspect=9229', 'demo.yaml'])).toMatchObject({ args: { target: 'demo.yaml', inspectPort: 9229 } });
    expect(parseCommandLine(['run', '--', '--inspect'])).toMatchObject({ args: { target: '--inspect' } });
  });

  it('parses --structured-outputs with --output-schema, and refuses it without (the model is checked once the config is merged)', () => {
    const local = ['--model', 'openai-compatible:qwen', '--base-url', 'http://127.0.0.1:11434/v1'];
    expect(parseCommandLine(['run', 'x', ...local, '--output-schema', 's.json', '--structured-outputs'])).toMatchObject({ args: { structuredOutputs: true, outputSchema: 's.json' } });
    expect(parseCommandLine(['run', 'x', ...local, '--output-schema', 's.json'])).not.toHaveProperty('args.structuredOutputs');
    expect(usageError(['run', 'x', ...local, '--structured-outputs'])).toBe("--structured-outputs says how to send --output-schema's schema: give --output-schema FILE too");
  });

  it('parses --pass-env NAME, repeated, and refuses what is not a variable\'s name', () => {
    expect(parseCommandLine(['run', 'x', '--pass-env', 'GITHUB_TOKEN', '--pass-env', 'NPM_TOKEN'])).toMatchObject({ args: { passEnv: ['GITHUB_TOKEN', 'NPM_TOKEN'] } });
    expect(usageError(['run', 'x', '--pass-env', 'A B'])).toBe('--pass-env takes the name of an environment variable, got "A B"');
  });

  it('parses --no-sandbox and --allow-network, and refuses the two together', () => {
    expect(parseCommandLine(['run', 'x', '--no-sandbox'])).toMatchObject({ args: { noSandbox: true } });
    expect(parseCommandLine(['run', 'x', '--allow-network'])).toMatchObject({ args: { allowNetwork: true } });
    expect(usageError(['run', 'x', '--no-sandbox', '--allow-network'])).toBe(
      '--allow-network opens the sandbox to the network, and --no-sandbox turns the sandbox off: give one of them',
    );
  });

  it('reads --max-cost as US dollars, with or without a dollar sign', () => {
    expect(parseCommandLine(['run', 'x', '--max-cost', '0.50'])).toMatchObject({ args: { maxCost: 0.5 } });
    expect(parseCommandLine(['run', 'x', '--max-cost', '$2'])).toMatchObject({ args: { maxCost: 2 } });
    expect(parseCommandLine(['run', 'x', '--max-cost', '.25'])).toMatchObject({ args: { maxCost: 0.25 } });
  });

  it('lets --resume leave out the prompt, to finish the run a session was in the middle of', () => {
    const command = parseCommandLine(['run', '--session', '.sessions', '--resume', 'chat-42']);
    expect(command).toEqual({ name: 'run', args: { session: '.sessions', resume: 'chat-42', yes: false, output: 'human', noColor: false } });
  });

  it('takes the session directory from LOOPCHART_SESSION_DIR without --session, and lets -c leave out the prompt', () => {
    expect(parseCommandLine(['run', '-c'], { sessionDirFromEnv: '/s' })).toMatchObject({ args: { session: '/s', continueLatest: true } });
    expect(parseCommandLine(['run', 'x', '--session', 'here'], { sessionDirFromEnv: '/s' })).toMatchObject({ args: { session: 'here' } });
    expect(parseCommandLine(['run', 'x', '--no-session'], { sessionDirFromEnv: '/s' })).not.toHaveProperty('args.session');
    expect(parseCommandLine(['run', 'x'], { sessionDirFromEnv: '' })).not.toHaveProperty('args.session');
  });

  it('collects repeated --allow and --deny rules', () => {
    expect(parseCommandLine(['run', 'x', '--allow', 'bash(git *)', '--allow', 'write(src/**)', '--deny', 'mcp__fs__*', '--permission-mode', 'allow-edits'])).toMatchObject({
      args: { allow: ['bash(git *)', 'write(src/**)'], deny: ['mcp__fs__*'], permissionMode: 'allow-edits' },
    });
  });

  it('parses the system prompt options', () => {
    expect(parseCommandLine(['run', 'x', '--system', 'Be brief.', '--append-system', 'In French.', '--agents-md'])).toMatchObject({
      args: { system: 'Be brief.', appendSystem: 'In French.', agentsMd: true },
    });
    expect(parseCommandLine(['run', 'x', '--system-file', 'p.md'])).toMatchObject({ args: { systemFile: 'p.md' } });
  });

  it('parses report with -o or --output, or without (stdout)', () => {
    expect(parseCommandLine(['report', 'trace.json', '-o', 'run.html'])).toEqual({ name: 'report', args: { traceFile: 'trace.json', output: 'run.html' } });
    expect(parseCommandLine(['report', '--output=run.html', 'trace.json'])).toEqual({ name: 'report', args: { traceFile: 'trace.json', output: 'run.html' } });
    expect(parseCommandLine(['report', 'trace.json'])).toEqual({ name: 'report', args: { traceFile: 'trace.json' } });
    expect(parseCommandLine(['report', '--help'])).toEqual({ name: 'help', topic: 'report' });
    expect(parseCommandLine(['help', 'report'])).toEqual({ name: 'help', topic: 'report' });
  });

  it('accepts -y for --yes, --events, and a prompt that starts with a dash after --', () => {
    const command = parseCommandLine(['run', '-y', '--events', '--', '-1 is negative; explain']);
    expect(command).toMatchObject({ name: 'run', args: { target: '-1 is negative; explain', yes: true, output: 'events' } });
  });

  it('finds help for each command, before any other check', () => {
    expect(parseCommandLine(['--help'])).toEqual({ name: 'help', topic: 'main' });
    expect(parseCommandLine(['help'])).toEqual({ name: 'help', topic: 'main' });
    expect(parseCommandLine(['help', 'chart'])).toEqual({ name: 'help', topic: 'chart' });
    expect(parseCommandLine(['run', '--max-steps', 'zero', '-h'])).toEqual({ name: 'help', topic: 'run' });
    expect(parseCommandLine(['chart', '--help'])).toEqual({ name: 'help', topic: 'chart' });
    expect(parseCommandLine(['chart'])).toEqual({ name: 'chart' });
  });

  it.each([
    [['run', 'x', '--max-steps', '2.5'], '--max-steps takes a positive whole number, got "2.5"'],
    [['run', 'x', '--max-steps', '-3'], "'--max-steps"],
    [['run', 'x', '--max-cost', '0'], '--max-cost takes an amount of US dollars greater than 0 (--max-cost 0.50), got "0"'],
    [['run', 'x', '--max-cost', 'ten'], '--max-cost takes an amount of US dollars'],
    [['run', 'x', '--max-cost', '1e3'], '--max-cost takes an amount of US dollars'],
    [['run', 'x', '--model'], "'--model"],
    [['run', 'x', '--model', 'gpt-4o'], '--model "gpt-4o" is not one of openai:<model-id>, anthropic:<model-id>, google:<model-id>, openai-compatible:<model-id>'],
    [['run', 'x', '--model', 'openai:'], 'is not one of'],
    [['run', 'x', '--api-key-env', 'MY-KEY'], '--api-key-env takes the name of an environment variable'],
    [['run', 'x', '--base-url', 'localhost:8080'], 'http or https URL'],
    [['run', 'x', '--tools', 'read,rm'], '--tools: unknown tool rm; known: read, write, edit, ls, glob, grep, bash'],
    [['run', 'x', '--cwd', ' '], '--cwd needs a value'],
    [['run', 'x', '--resume', 'id'], '--resume needs --session DIR'],
    [['run', '--session', 'dir'], 'run needs a script file or a prompt (or - to read the prompt from stdin)'],
    [['run', 'x', '--max-step', '3'], 'run has no option --max-step; did you mean --max-steps?'],
    [['run', 'x', '--frobnicate'], 'run has no option --frobnicate'],
    [['run', 'x', '--session', 's', '--resume', '../etc'], '--resume takes a session id'],
    [['run', 'x', '--session', 's', '--resume', 'id', '--record', 'r.yaml'], '--record cannot be combined with --resume'],
    [['run', 'x', '--session', 's', '--resume', 'id', '--continue'], '--resume ID and --continue both choose the session to continue'],
    [['run', 'x', '--session', 's', '--no-session'], '--session DIR keeps the session and --no-session keeps none'],
    [['run', 'x', '--session', 's', '-c', '--record', 'r.yaml'], '--record cannot be combined with --continue'],
    [['run', 'x', '--system', 'a', '--system-file', 'b'], '--system and --system-file both give the system prompt'],
    [['run', 'x', '--system', ''], '--system needs a value'],
    [['run', 'x', '--yes', '--permission-mode', 'deny'], '--yes approves the calls that --permission-mode deny denies'],
    [['run', 'x', '--inspect=http'], '--inspect takes a port from 0 to 65535 (--inspect=9229), got "http"'],
    [['run', 'x', '--inspect=70000'], 'got "70000"'],
    [['run', 'x', '--inspect', '9229'], 'write the port as --inspect=9229'],
    [['run', 'x', '--trace'], "'--trace"],
    [['run', 'x', '--report', ' '], '--report needs a value'],
    [['report'], 'report needs a trace file'],
    [['report', 'a.json', 'b.json'], 'report takes one trace file, got 2 arguments'],
    [['report', 'a.json', '--json'], 'report has no option --json'],
    [['--json', 'run', 'x'], 'unknown option --json (options come after the command)'],
    [['help', 'deploy'], 'no help for "deploy"'],
  ])('%j is a usage error', (argv, message) => {
    expect(usageError(argv)).toContain(message);
  });
});

describe('the command line conventions', () => {
  it('answers --version and -v', () => {
    expect(parseCommandLine(['--version'])).toEqual({ name: 'version' });
    expect(parseCommandLine(['-v'])).toEqual({ name: 'version' });
  });

  it('reads the prompt from stdin for run - and for a bare run with piped stdin', () => {
    expect(parseCommandLine(['run', '-'])).toMatchObject({ name: 'run', args: { target: '-' } });
    expect(parseCommandLine(['run', '--max-steps', '3'], { stdinIsPiped: true })).toMatchObject({ name: 'run', args: { target: '-', maxSteps: 3 } });
  });

  it('suggests the closest option only when it is close', () => {
    expect(closestName('max-step', runOptionNames)).toBe('max-steps');
    expect(closestName('jsno', runOptionNames)).toBe('json');
    expect(closestName('frobnicate', runOptionNames)).toBeUndefined();
  });
});
