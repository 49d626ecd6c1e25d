import { decideByRules, type ApprovalRules } from '../approval/approval-policy.js';
import { approvalRulesSchema } from '../approval/approval-rules-schema.js';
import { parseOptions } from '../core/options-check.js';

/**
 * `rules` with MCP tools asking before they run: every tool of `mcpToolNames`
 * that no rule names (where unnamed tools would be allowed) is added to
 * `ask`. A rule that names an MCP tool still decides for it, and a `default`
 * of `ask` or `deny` still holds: MCP tools only get stricter. Rules are
 * probed without an input, so a rule with a `when` predicate counts as naming
 * a tool only for `deny` and `ask`. Rules with a key it does not know (`alow`) are a `TypeError`.
 *
 * @example
 * ```ts
 * import { askForMcpTools, connectMcpTools } from 'loopchart/mcp';
 *
 * const mcp = await connectMcpTools({ mcpServers: { fs: { command: 'mcp-server-filesystem', args: ['.'] } } });
 * const approval = askForMcpTools({ allow: ['mcp__fs__read_file'] }, Object.keys(mcp.tools));
 * // { allow: ['mcp__fs__read_file'], ask: ['mcp__fs__write_file', ...] }: reading is allowed, the rest asks
 * ```
 */
export function askForMcpTools(rules: ApprovalRules | undefined, mcpToolNames: readonly string[]): ApprovalRules {
  if (rules !== undefined) parseOptions('askForMcpTools', approvalRulesSchema, rules);
  const unnamedAllowed = (rules?.default ?? 'allow') === 'allow';
  const unnamed = mcpToolNames.filter((toolName) => {
    const call = { toolName, input: undefined };
    // Two different defaults give the same decision only when a rule decided.
    return decideByRules({ ...rules, default: 'deny' }, call) !== decideByRules({ ...rules, default: 'ask' }, call);
  });
  if (!unnamedAllowed || unnamed.length === 0) return { ...rules };
  return { ...rules, ask: [...(rules?.ask ?? []), ...unnamed] };
}
