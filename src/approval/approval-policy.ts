import picomatch from 'picomatch';
import type { StepToolCall } from '../core/step.js';
import type { ApprovalDecision, ApprovalFunction } from '../core/callbacks.js';

export type { ApprovalContext, ApprovalDecision, ApprovalFunction } from '../core/callbacks.js';

/** A rule: a tool-name glob, optionally narrowed by a predicate on the call's input. */
export type ApprovalRule = string | { tool: string; when?: (input: unknown) => boolean };

/**
 * Rules of tool-name globs. Deny rules are checked first, then ask, then
 * allow; the first matching rule decides. A call no rule matches gets
 * `default` (default `'allow'`).
 *
 * @example
 * ```ts
 * approval: {
 *   deny: [{ tool: 'bash', when: (input) => /rm -rf/.test(String((input as { command?: string }).command)) }],
 *   ask: ['write', 'edit', 'bash'],
 *   allow: ['read', 'ls', 'glob', 'grep'],
 *   default: 'ask',
 * }
 * ```
 */
export interface ApprovalRules {
  deny?: ApprovalRule[];
  ask?: ApprovalRule[];
  allow?: ApprovalRule[];
  default?: ApprovalDecision;
}

export type ApprovalPolicy = ApprovalFunction | ApprovalRules;

const matcherCache = new Map<string, (name: string) => boolean>();

function globMatches(glob: string, toolName: string): boolean {
  let matcher = matcherCache.get(glob);
  if (!matcher) {
    matcher = picomatch(glob, { dot: true });
    matcherCache.set(glob, matcher);
  }
  return matcher(toolName);
}

function ruleMatches(rule: ApprovalRule, call: Pick<StepToolCall, 'toolName' | 'input'>): boolean {
  if (typeof rule === 'string') return globMatches(rule, call.toolName);
  if (!globMatches(rule.tool, call.toolName)) return false;
  return rule.when === undefined || rule.when(call.input) === true;
}

/** The decision of a rule set for one call. A predicate that throws counts as matching for deny and ask rules and as not matching for allow rules (fail closed). */
export function decideByRules(rules: ApprovalRules, call: Pick<StepToolCall, 'toolName' | 'input'>): ApprovalDecision {
  const matches = (rule: ApprovalRule, onThrow: boolean) => {
    try {
      return ruleMatches(rule, call);
    } catch {
      return onThrow;
    }
  };
  if (rules.deny?.some((rule) => matches(rule, true))) return 'deny';
  if (rules.ask?.some((rule) => matches(rule, true))) return 'ask';
  if (rules.allow?.some((rule) => matches(rule, false))) return 'allow';
  return rules.default ?? 'allow';
}
