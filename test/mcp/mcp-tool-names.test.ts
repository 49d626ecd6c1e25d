import { tool, type ToolSet } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { McpToolNameError, prefixedMcpToolName } from '../../src/mcp/index.js';
import { mergeServerTools } from '../../src/mcp/mcp-tool-names.js';

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
});
