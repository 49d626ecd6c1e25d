import { describe, expect, it } from 'vitest';
import { decideByRules } from '../../src/approval/approval-policy.js';
import { parseCommandLine } from '../../src/cli/args.js';
import { withMcpApprovalRules } from '../../src/cli/mcp-tools.js';
import { UsageError } from '../../src/cli/usage-error.js';
import { askForMcpTools } from '../../src/mcp/index.js';

const mcpTools = ['mcp__fs__read_file', 'mcp__fs__write_file', 'mcp__github__create_issue'];
const decide = (rules: ReturnType<typeof askForMcpTools> | undefined, toolName: string) => decideByRules(rules ?? {}, { toolName, input: {} });

describe('askForMcpTools', () => {
  it('makes every MCP tool ask when there are no rules, and leaves other tools allowed', () => {
    const rules = askForMcpTools(undefined, mcpTools);
    for (const name of mcpTools) expect(decide(rules, name), name).toBe('ask');
    expect(decide(rules, 'read')).toBe('allow');
  });

  it('lets a rule that names an MCP tool decide for it, and keeps the rest asking', () => {
    const rules = askForMcpTools({ allow: ['mcp__fs__read_*'], deny: ['mcp__github__*'], ask: ['bash'] }, mcpTools);
    expect(decide(rules, 'mcp__fs__read_file')).toBe('allow');
    expect(decide(rules, 'mcp__github__create_issue')).toBe('deny');
    expect(decide(rules, 'mcp__fs__write_file')).toBe('ask');
    expect(decide(rules, 'bash')).toBe('ask');
  });

  it('never makes an MCP tool less strict than the rules\' default: a default deny still denies', () => {
    const rules = askForMcpTools({ default: 'deny' }, mcpTools);
    for (const name of mcpTools) expect(decide(rules, name), name).toBe('deny');
  });
});

describe('the approval rules of loopchart run --mcp', () => {
  it('with a real model, MCP tools ask even when the script allows them', () => {
    const rules = withMcpApprovalRules({ allow: ['mcp__*'] }, mcpTools, { realModel: true });
    for (const name of mcpTools) expect(decide(rules, name), name).toBe('ask');
  });

  it("with the script's own turns, the script's rules decide and unnamed MCP tools ask", () => {
    const rules = withMcpApprovalRules({ allow: ['mcp__fs__*'] }, mcpTools, { realModel: false });
    expect(decide(rules, 'mcp__fs__write_file')).toBe('allow');
    expect(decide(rules, 'mcp__github__create_issue')).toBe('ask');
  });

  it('without MCP tools, the rules are what they were', () => {
    const rules = { ask: ['write'] };
    expect(withMcpApprovalRules(rules, [], { realModel: true })).toBe(rules);
    expect(withMcpApprovalRules(undefined, [], { realModel: false })).toBeUndefined();
  });

  it('--mcp takes the config file', () => {
    expect(parseCommandLine(['run', 'task.yaml', '--mcp', '.mcp.json'])).toMatchObject({ name: 'run', args: { target: 'task.yaml', mcp: '.mcp.json' } });
    expect(() => parseCommandLine(['run', 'task.yaml', '--mcp', ''])).toThrow(new UsageError('--mcp needs a value'));
  });
});
