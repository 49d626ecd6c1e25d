import picomatch from 'picomatch';
import { decideByRules, type ApprovalPolicy, type ApprovalRule, type ApprovalRules } from '../approval/approval-policy.js';
import { parsePermissionRule, toApprovalRule } from './permission-rule.js';

/** `--permission-mode`: `ask` (the rules as they are), `allow-edits` (write and edit run without asking), `deny` (what would ask is denied). */
export type PermissionMode = 'ask' | 'allow-edits' | 'deny';

export const permissionModes: readonly PermissionMode[] = ['ask', 'allow-edits', 'deny'];

/** The permissions given on the command line. */
export interface CommandLinePermissions {
  /** `--allow RULE`, each. */
  allow: readonly string[];
  /** `--deny RULE`, each. */
  deny: readonly string[];
  mode: PermissionMode;
}

/** The tools `--permission-mode allow-edits` lets run without asking. */
export const EDIT_TOOLS = ['write', 'edit'] as const;

/**
 * The run's approval policy: the run's own rules (a script's `approval`, a prompt run's asks, the
 * MCP tools' asks), their rule strings read as {@link toApprovalRule} reads them, with the command
 * line's on top: a `--deny` rule or one of the run's deny rules denies; else an `--allow` rule (and,
 * with `allow-edits`, write and edit) allows; else the run's rules decide.
 *
 * @example
 * cliApprovalPolicy({ ask: ['write', 'edit', 'bash'] }, { allow: ['bash(git *)'], deny: ['bash(git push *)'], mode: 'ask' }, '/repo')
 * // git status runs, git push is denied, any other command asks
 */
export function cliApprovalPolicy(rules: ApprovalRules | undefined, permissions: CommandLinePermissions, workspace: string): ApprovalPolicy | undefined {
  const convert = (list: readonly ApprovalRule[] | undefined, as: 'allow' | 'deny' | 'ask') =>
    list?.map((rule) => (typeof rule === 'string' ? toApprovalRule(rule, { workspace, as }) : rule));
  const own: ApprovalRules | undefined = rules && {
    ...rules,
    ...(rules.deny ? { deny: convert(rules.deny, 'deny') } : {}),
    ...(rules.ask ? { ask: convert(rules.ask, 'ask') } : {}),
    ...(rules.allow ? { allow: convert(rules.allow, 'allow') } : {}),
  };
  const allow = convert([...permissions.allow, ...(permissions.mode === 'allow-edits' ? EDIT_TOOLS : [])], 'allow')!;
  const deny = convert(permissions.deny, 'deny')!;
  if (allow.length === 0 && deny.length === 0) return own;
  return (call) => {
    if (decideByRules({ deny: [...deny, ...(own?.deny ?? [])] }, call) === 'deny') return 'deny';
    if (decideByRules({ allow, default: 'deny' }, call) === 'allow') return 'allow';
    return own ? decideByRules(own, call) : 'allow';
  };
}

/**
 * The first command-line rule whose tool matches none of the run's tools, said so that a typo
 * (`--allow wirte`) is not silently a rule that never applies; undefined when every rule names one.
 *
 * @example
 * unmatchedRule({ allow: ['wirte'], deny: [], mode: 'ask' }, ['read', 'write']) // '--allow wirte matches none of this run\'s tools (read, write)'
 */
export function unmatchedRule(permissions: CommandLinePermissions, toolNames: readonly string[]): string | undefined {
  for (const [option, rules] of [['--allow', permissions.allow], ['--deny', permissions.deny]] as const) {
    for (const text of rules) {
      const matches = picomatch(parsePermissionRule(text).tool, { dot: true });
      if (!toolNames.some((name) => matches(name))) return `${option} ${text} matches none of this run's tools (${toolNames.join(', ') || 'it has none'})`;
    }
  }
  return undefined;
}
