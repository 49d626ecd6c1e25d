import { describe, expect, it } from 'vitest';
import { parseCommandLine } from '../../src/cli/args.js';
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

  it('defaults: human output, OPENAI_API_KEY, no approvals, colour allowed', () => {
    expect(parseCommandLine(['run', 'demo.yaml'])).toEqual({
      name: 'run',
      args: { target: 'demo.yaml', apiKeyEnv: 'OPENAI_API_KEY', yes: false, output: 'human', noColor: false },
    });
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
    [['run', 'x', '--model'], "'--model"],
    [['run', 'x', '--model', 'gpt-4o'], '--model "gpt-4o" is not one of openai:<model-id> or openai-compatible:<model-id>'],
    [['run', 'x', '--model', 'openai:'], 'is not one of'],
    [['run', 'x', '--api-key-env', 'MY-KEY'], '--api-key-env takes the name of an environment variable'],
    [['run', 'x', '--base-url', 'localhost:8080'], 'http or https URL'],
    [['run', 'x', '--tools', 'read,rm'], '--tools: unknown tool rm; known: read, write, edit, ls, glob, grep, bash'],
    [['run', 'x', '--cwd', ' '], '--cwd needs a value'],
    [['run', 'x', '--record', 'out.json'], "Unknown option '--record'"],
    [['run', 'x', '--session', 'dir'], "Unknown option '--session'"],
    [['run', 'x', '--resume', 'id'], "Unknown option '--resume'"],
    [['run', 'x', '--inspect'], "Unknown option '--inspect'"],
    [['--json', 'run', 'x'], 'unknown option --json (options come after the command)'],
    [['help', 'deploy'], 'no help for "deploy"'],
  ])('%j is a usage error', (argv, message) => {
    expect(usageError(argv)).toContain(message);
  });
});
