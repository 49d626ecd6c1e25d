import { tool, type ToolSet } from 'ai';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { McpToolNameError, prefixedMcpToolName } from '../../src/mcp/index.js';
import { mergeServerTools } from '../../src/mcp/mcp-tool-names.js';

/** What OpenAI's and Anthropic's APIs take as a tool name. */
const PROVIDER_TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

const someTool = (description: string) => tool({ description, inputSchema: z.object({}), execute: async () => description });
const toolsOf = (...names: string[]): ToolSet => Object.fromEntries(names.map((name) => [name, someTool(name)]));

describe('MCP tool names', () => {
  it('are mcp__<server>__<tool> by default, so two servers may both have a tool called search', () => {
    const merged = mergeServerTools(
      [
        { server: 'github', tools: toolsOf('search', 'create_issue') },
        { server: 'docs', tools: toolsOf('search') },
      ],
      { toolName: prefixedMcpToolName, reservedToolNames: ['read', 'search'] },
    );
    expect(Object.keys(merged)).toEqual(['mcp__github__search', 'mcp__github__create_issue', 'mcp__docs__search']);
    expect(merged.mcp__docs__search?.description).toBe('search');
  });

  it('two tools with the same name are an error naming both servers and tools', () => {
    const merge = () =>
      mergeServerTools(
        [
          { server: 'github', tools: toolsOf('search') },
          { server: 'docs', tools: toolsOf('search') },
        ],
        { toolName: (_server, name) => name },
      );
    expect(merge).toThrow(McpToolNameError);
    expect(merge).toThrow('two MCP tools would be named "search": tool "search" of server "github" and tool "search" of server "docs"');
  });

  it('a name taken by one of the agent\'s other tools is an error, not a silent replacement', () => {
    expect(() => mergeServerTools([{ server: 'fs', tools: toolsOf('read') }], { toolName: (_server, name) => name, reservedToolNames: ['read', 'write'] })).toThrow(
      'tool "read" of MCP server "fs" would be named "read", the name of one of the agent\'s other tools',
    );
  });

  it('a toolName function that gives no name is an error', () => {
    expect(() => mergeServerTools([{ server: 'fs', tools: toolsOf('read') }], { toolName: () => '' })).toThrow('gave tool "read" of MCP server "fs" no name');
  });

  it('writes the characters MCP allows in a tool name and providers refuse (. and /) as _', () => {
    expect(prefixedMcpToolName('admin', 'tools.list')).toBe('mcp__admin__tools_list');
    expect(prefixedMcpToolName('admin', 'user-profile/update')).toBe('mcp__admin__user-profile_update');
    expect(prefixedMcpToolName('fs', 'read_file')).toBe('mcp__fs__read_file');
  });

  it('cuts a name longer than 64 characters to 64: the prefix stays whole, and a hash of the tool name ends it', () => {
    const tool = `tools_ai_agent_agent___add_default_information_tool_${'x'.repeat(20)}`;
    const name = prefixedMcpToolName('drupal-local', tool);
    expect(name).toHaveLength(64);
    expect(name).toMatch(/^mcp__drupal-local__tools_ai_agent_agent___add_default_i_[0-9a-f]{8}$/);
    expect(prefixedMcpToolName('drupal-local', tool)).toBe(name);
    // Two tools that begin alike for longer than the cut get different names.
    expect(prefixedMcpToolName('drupal-local', `${tool}a`)).not.toBe(prefixedMcpToolName('drupal-local', `${tool}b`));
  });

  it('gives every tool of every server a name providers take, beginning with its server prefix', () => {
    const serverName = fc.stringMatching(/^[A-Za-z0-9_-]{1,47}$/);
    const toolName = fc.string({ minLength: 1, maxLength: 128, unit: 'binary' });
    fc.assert(
      fc.property(serverName, toolName, (server, tool) => {
        const name = prefixedMcpToolName(server, tool);
        expect(name).toMatch(PROVIDER_TOOL_NAME);
        expect(name.startsWith(`mcp__${server}__`)).toBe(true);
      }),
    );
  });

  it('refuses a server name that leaves a long tool no room in 64 characters, saying how long it may be', () => {
    const server = 's'.repeat(48);
    expect(prefixedMcpToolName(server, 'x')).toBe(`mcp__${server}__x`);
    expect(() => prefixedMcpToolName(server, 'a_tool_name_long_enough_to_be_cut')).toThrow(McpToolNameError);
    expect(() => prefixedMcpToolName(server, 'a_tool_name_long_enough_to_be_cut')).toThrow('give it a name of at most 47 characters');
    expect(prefixedMcpToolName('s'.repeat(47), 'a_tool_name_long_enough_to_be_cut')).toMatch(PROVIDER_TOOL_NAME);
  });
});
