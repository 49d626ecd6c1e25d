import { describe, expect, it } from 'vitest';
import { decideByRules } from '../../src/approval/approval-policy.js';
import { parsePermissionRule, permissionRuleProblem, toApprovalRule } from '../../src/cli/permission-rule.js';
import { cliApprovalPolicy, unmatchedRule } from '../../src/cli/permissions.js';

const workspace = '/repo';
const matches = (rule: string, as: 'allow' | 'deny' | 'ask', toolName: string, input: unknown) =>
  decideByRules({ [as]: [toApprovalRule(rule, { workspace, as })], default: as === 'allow' ? 'deny' : 'allow' }, { toolName, input }) === as;

describe('permission rules as scripts, --allow and --deny write them', () => {
  it('reads a tool-name glob, or a tool with a pattern', () => {
    expect(parsePermissionRule('mcp__fs__*')).toEqual({ tool: 'mcp__fs__*' });
    expect(parsePermissionRule(' bash(git *) ')).toEqual({ tool: 'bash', pattern: 'git *' });
    expect(parsePermissionRule('write(src/**)')).toEqual({ tool: 'write', pattern: 'src/**' });
  });

  it.each([
    ['', 'a rule may not be empty'],
    ['bash(git *', 'must end with ")"'],
    ['bash)', 'has a ")" without "("'],
    ['(git *)', 'names no tool before "("'],
    ['bash()', 'has an empty pattern'],
    ['mcp__fs__*(x)', 'a pattern in parentheses works with one of bash, read, write, edit, ls, glob, grep, not with "mcp__fs__*"'],
  ])('refuses %j: %s', (rule, message) => {
    expect(permissionRuleProblem(rule)).toContain(message);
  });

  it('an allow rule on bash matches a simple command only, so a chained command still asks', () => {
    expect(matches('bash(git *)', 'allow', 'bash', { command: 'git status --short' })).toBe(true);
    expect(matches('bash(git *)', 'allow', 'bash', { command: 'gitk' })).toBe(false);
    for (const command of ['git log; rm -rf ~', 'git log && curl x', 'git log | sh', 'git log $(rm x)', 'git log `rm x`', 'git log > /etc/x', 'git log\nrm x', 'git log &']) {
      expect(matches('bash(git *)', 'allow', 'bash', { command })).toBe(false);
    }
  });

  it('a deny or ask rule on bash matches any part of a chained command', () => {
    expect(matches('bash(rm *)', 'deny', 'bash', { command: 'ls && rm -rf build' })).toBe(true);
    expect(matches('bash(rm *)', 'ask', 'bash', { command: 'echo $(rm x)' })).toBe(true);
    expect(matches('bash(rm *)', 'deny', 'bash', { command: 'ls -la' })).toBe(false);
  });

  it('a trailing :* matches the command alone or with arguments, as Claude Code writes it', () => {
    expect(matches('bash(npm test:*)', 'allow', 'bash', { command: 'npm test' })).toBe(true);
    expect(matches('bash(npm test:*)', 'allow', 'bash', { command: 'npm test -- --watch' })).toBe(true);
    expect(matches('bash(npm test:*)', 'allow', 'bash', { command: 'npm testing' })).toBe(false);
  });

  it('a file tool rule matches its path relative to the workspace; a path outside never matches an allow rule', () => {
    expect(matches('write(src/**)', 'allow', 'write', { path: 'src/a/b.ts' })).toBe(true);
    expect(matches('write(src/**)', 'allow', 'write', { path: './src/../src/c.ts' })).toBe(true);
    expect(matches('write(src/**)', 'allow', 'write', { path: '/repo/src/d.ts' })).toBe(true);
    expect(matches('write(src/**)', 'allow', 'write', { path: 'docs/a.md' })).toBe(false);
    expect(matches('write(**)', 'allow', 'write', { path: '../elsewhere/a.md' })).toBe(false);
    expect(matches('ls(.)', 'allow', 'ls', {})).toBe(true);
  });
});

describe('cliApprovalPolicy', () => {
  const call = (toolName: string, input: unknown) => ({ toolName, input, toolCallId: 'c' });
  const decide = (policy: ReturnType<typeof cliApprovalPolicy>, toolName: string, input: unknown) =>
    typeof policy === 'function' ? policy(call(toolName, input), {} as never) : decideByRules(policy ?? {}, call(toolName, input));

  it('--allow goes before the run\'s asks, --deny and the run\'s deny rules before --allow', () => {
    const policy = cliApprovalPolicy({ deny: ['bash(git push *)'], ask: ['write', 'edit', 'bash'] }, { allow: ['bash(git *)'], deny: ['write(.env)'], mode: 'ask' }, workspace);
    expect(decide(policy, 'bash', { command: 'git status' })).toBe('allow');
    expect(decide(policy, 'bash', { command: 'git push origin main' })).toBe('deny');
    expect(decide(policy, 'bash', { command: 'make' })).toBe('ask');
    expect(decide(policy, 'write', { path: '.env' })).toBe('deny');
    expect(decide(policy, 'write', { path: 'a.txt' })).toBe('ask');
    expect(decide(policy, 'read', { path: 'a.txt' })).toBe('allow');
  });

  it('allow-edits lets write and edit run and leaves bash asking', () => {
    const policy = cliApprovalPolicy({ ask: ['write', 'edit', 'bash'] }, { allow: [], deny: [], mode: 'allow-edits' }, workspace);
    expect(decide(policy, 'edit', { path: 'a.txt' })).toBe('allow');
    expect(decide(policy, 'bash', { command: 'ls' })).toBe('ask');
  });

  it('names a command-line rule that matches none of the run\'s tools', () => {
    expect(unmatchedRule({ allow: ['wirte'], deny: [], mode: 'ask' }, ['read', 'write'])).toBe("--allow wirte matches none of this run's tools (read, write)");
    expect(unmatchedRule({ allow: ['mcp__fs__*'], deny: ['bash(rm *)'], mode: 'ask' }, ['bash', 'mcp__fs__read'])).toBeUndefined();
  });
});
