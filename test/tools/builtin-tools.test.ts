import { asSchema, safeValidateTypes } from '@ai-sdk/provider-utils';
import { describe, expect, it } from 'vitest';
import { builtinToolNames, builtinTools, defaultBuiltinToolNames, globTool, grepTool, lsTool } from '../../src/tools/index.js';
import { runTool, useTempWorkspace } from './helpers.js';

describe('builtinTools', () => {
  const ws = useTempWorkspace();

  it('enables every tool except bash by default', () => {
    const tools = builtinTools({ cwd: ws.root });
    expect(Object.keys(tools)).toEqual(['read', 'write', 'edit', 'ls', 'glob', 'grep']);
    expect(defaultBuiltinToolNames).toEqual(Object.keys(tools));
  });

  it('enables exactly the requested tools, bash included when asked for', () => {
    const tools = builtinTools({ cwd: ws.root, tools: ['bash', 'read'] });
    expect(Object.keys(tools).sort()).toEqual(['bash', 'read']);
    expect(builtinToolNames).toContain('bash');
  });

  it('gives every tool a description and an execute function', () => {
    const tools = builtinTools({ cwd: ws.root, tools: [...builtinToolNames] });
    for (const name of builtinToolNames) {
      expect(tools[name]?.description, name).toBeTruthy();
      expect(typeof tools[name]?.execute, name).toBe('function');
    }
  });

  it('wires cwd and the bash timeout into the tools', async () => {
    await ws.file('a.txt', 'hello\n');
    const tools = builtinTools({ cwd: ws.root, tools: ['read', 'bash'], bash: { timeoutMs: 100 } });
    await expect(runTool(tools.read, { path: 'a.txt' })).resolves.toBe('     1\thello');
    await expect(runTool(tools.bash, { command: 'sleep 5' })).rejects.toThrow(/timed out after 100 ms/);
  });

  it.each([
    ['bash', { command: 'npm test', timeout: 600_000 }, 'timeout', 'command, timeoutMs'],
    ['read', { path: 'a.txt', lines: 50 }, 'lines', 'path, offset, limit'],
    ['write', { path: 'a.txt', content: 'x', append: true }, 'append', 'path, content'],
    ['edit', { path: 'a.txt', old_string: 'a', oldText: 'a', newText: 'b' }, 'old_string', 'path, oldText, newText, replaceAll'],
    ['ls', { path: '.', recursive: true }, 'recursive', 'path'],
    ['glob', { pattern: '*.ts', exclude: 'node_modules' }, 'exclude', 'pattern, path'],
    ['grep', { pattern: 'TODO', include: '*.ts' }, 'include', 'pattern, path, glob, ignoreCase, literal'],
  ] as const)('%s refuses an input field it does not take, naming it and the ones it takes, instead of dropping it', async (name, input, unknown, known) => {
    const tools = builtinTools({ cwd: ws.root, tools: [name] });
    const result = await safeValidateTypes({ value: input, schema: asSchema(tools[name]!.inputSchema) });
    expect(result.success).toBe(false);
    expect(result.success ? '' : result.error.message).toContain(`Unknown input field '${unknown}' for ${name}; it takes: ${known}`);
  });

  it.each([
    ['grepTool', 'maxMatches', -1, () => grepTool({ cwd: ws.root, maxMatches: -1 }), 'Too small: expected number to be >=1'],
    ['grepTool', 'timeLimitMs', Number.NaN, () => grepTool({ cwd: ws.root, timeLimitMs: Number.NaN }), 'Invalid input: expected number, received NaN'],
    ['grepTool', 'timeLimitMs', 3e9, () => grepTool({ cwd: ws.root, timeLimitMs: 3e9 }), 'at most 2147483647 ms (about 24.8 days), the longest a timer can wait'],
    ['globTool', 'maxResults', 0, () => globTool({ cwd: ws.root, maxResults: 0 }), 'Too small: expected number to be >=1'],
    ['globTool', 'timeLimitMs', -1, () => globTool({ cwd: ws.root, timeLimitMs: -1 }), 'Too small: expected number to be >0'],
    ['lsTool', 'maxEntries', 1.5, () => lsTool({ cwd: ws.root, maxEntries: 1.5 }), 'Invalid input: expected int, received number'],
  ])('%s refuses %s %s, which it would otherwise ignore or turn into a limit of nothing', (factory, name, _value, make, expected) => {
    expect(make).toThrow(`Invalid ${factory} options: ${name}: ${expected}`);
  });

  it('refuses bash options when bash is not one of the tools, instead of leaving the app believing it has a bash tool with them', () => {
    const message =
      "Invalid builtinTools options: bash: options for bash are given, but 'bash' is not in tools (bash is off by default); add 'bash' to tools, or leave the bash options out";
    expect(() => builtinTools({ cwd: ws.root, bash: { timeoutMs: 30_000 } })).toThrow(message);
    expect(() => builtinTools({ cwd: ws.root, tools: ['read', 'grep'], bash: { sandbox: 'none' } })).toThrow(message);
    expect(Object.keys(builtinTools({ cwd: ws.root, tools: ['read', 'bash'], bash: { timeoutMs: 30_000 } }))).toEqual(['read', 'bash']);
  });

  it('rejects an unknown tool name, naming it and the available tools', () => {
    expect(() => builtinTools({ cwd: ws.root, tools: ['read', 'rm' as never] })).toThrow(
      "Invalid builtinTools options: tools.1: Unknown built-in tool 'rm'; available tools: read, write, edit, ls, glob, grep, bash",
    );
  });

  it('rejects an empty cwd and a non-positive bash timeout', () => {
    expect(() => builtinTools({ cwd: '' })).toThrow(/cwd: cwd must be a non-empty path/);
    expect(() => builtinTools({ cwd: ws.root, bash: { timeoutMs: 0 } })).toThrow(/bash\.timeoutMs/);
  });
});
