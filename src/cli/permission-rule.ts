import path from 'node:path';
import picomatch from 'picomatch';
import type { ApprovalRule } from '../approval/approval-policy.js';

/** The tools whose rules may name what they act on, and which input field that is. */
const ARGUMENT_OF: Readonly<Record<string, { field: 'command' | 'path'; what: string }>> = {
  bash: { field: 'command', what: 'its command' },
  read: { field: 'path', what: 'its path' },
  write: { field: 'path', what: 'its path' },
  edit: { field: 'path', what: 'its path' },
  ls: { field: 'path', what: 'its path' },
  glob: { field: 'path', what: 'its path' },
  grep: { field: 'path', what: 'its path' },
};

const TOOLS_WITH_ARGUMENT = Object.keys(ARGUMENT_OF).join(', ');

/** A permission rule as written: a tool-name glob, and what its argument must match. */
export interface PermissionRule {
  /** A tool-name glob: `bash`, `mcp__fs__*`, `{write,edit}`. */
  tool: string;
  /** `bash(git *)`: a command pattern; `write(src/**)`: a path glob relative to the workspace. */
  pattern?: string;
}

/**
 * Reads a rule as scripts and `--allow`/`--deny` write it: `TOOL` (a tool-name glob) or
 * `TOOL(PATTERN)`, where TOOL is bash (PATTERN matches its command, `*` matching anything,
 * a trailing `:*` the command alone or followed by anything) or a file tool (PATTERN is a glob
 * of its path, relative to the workspace).
 *
 * @example
 * parsePermissionRule('bash(git *)')   // { tool: 'bash', pattern: 'git *' }
 * parsePermissionRule('mcp__fs__*')    // { tool: 'mcp__fs__*' }
 * @throws Error saying what is wrong: an empty rule, unbalanced parentheses, a pattern on a tool that has no argument to match.
 */
export function parsePermissionRule(text: string): PermissionRule {
  const rule = text.trim();
  if (rule === '') throw new Error('a rule may not be empty');
  const open = rule.indexOf('(');
  if (open < 0) {
    if (rule.includes(')')) throw new Error(`"${text}" has a ")" without "("`);
    return { tool: rule };
  }
  if (!rule.endsWith(')')) throw new Error(`"${text}" must end with ")": write TOOL(PATTERN), e.g. bash(git *)`);
  const tool = rule.slice(0, open).trim();
  const pattern = rule.slice(open + 1, -1).trim();
  if (tool === '') throw new Error(`"${text}" names no tool before "("`);
  if (pattern === '') throw new Error(`"${text}" has an empty pattern: write ${tool} alone for every call of it`);
  if (!Object.hasOwn(ARGUMENT_OF, tool)) {
    throw new Error(`"${text}": a pattern in parentheses works with one of ${TOOLS_WITH_ARGUMENT}, not with "${tool}" (write it without parentheses to match its every call)`);
  }
  return { tool, pattern };
}

/** Why `text` is not a rule, or undefined when it is one. */
export function permissionRuleProblem(text: string): string | undefined {
  try {
    parsePermissionRule(text);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/**
 * A rule as the agent's approval policy takes it. `as` says which list it goes in: an `allow` rule
 * with a command pattern matches only a simple command (no `;`, `&`, `|`, `<`, `>`, `` ` ``,
 * `$(` or line break, so `bash(git *)` does not allow `git log; rm -rf ~`), and a path that leaves
 * the workspace never matches one; a `deny` or `ask` rule matches when the whole command or any
 * part of it between those operators matches.
 *
 * @example
 * toApprovalRule('bash(git *)', { workspace: '/repo', as: 'allow' }) // { tool: 'bash', when: (input) => … }
 */
export function toApprovalRule(text: string, { workspace, as }: { workspace: string; as: 'allow' | 'deny' | 'ask' }): ApprovalRule {
  const { tool, pattern } = parsePermissionRule(text);
  if (pattern === undefined) return tool;
  const argument = ARGUMENT_OF[tool]!;
  const failsClosed = as !== 'allow';
  if (argument.field === 'command') {
    const matches = commandMatcher(pattern);
    return {
      tool,
      when: (input) => {
        const command = stringField(input, 'command')?.trim();
        if (command === undefined) return failsClosed;
        if (failsClosed) return matches(command) || commandParts(command).some(matches);
        return !COMPOUND.test(command) && matches(command);
      },
    };
  }
  const matches = picomatch(pattern, { dot: true });
  return {
    tool,
    when: (input) => {
      const relative = workspaceRelative(workspace, stringField(input, 'path') ?? '.');
      if (relative === undefined) return failsClosed;
      return matches(relative);
    },
  };
}

/** Shell syntax that runs more than one command, or substitutes one. */
const COMPOUND = /[;&|<>`\n]|\$\(/;

function commandParts(command: string): string[] {
  return command
    .split(/[;&|\n`]|\$\(|\)/)
    .map((part) => part.trim())
    .filter(Boolean);
}

/** `*` matches anything (spaces and slashes too); a trailing `:*` matches the command alone or followed by a space and anything. */
function commandMatcher(pattern: string): (command: string) => boolean {
  const prefix = pattern.endsWith(':*') ? pattern.slice(0, -2) : undefined;
  const source = (glob: string) => glob.split('*').map((piece) => piece.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[\\s\\S]*');
  const regex = prefix !== undefined ? new RegExp(`^${source(prefix)}(\\s[\\s\\S]*)?$`) : new RegExp(`^${source(pattern)}$`);
  return (command) => regex.test(command);
}

/** The path relative to the workspace, `/`-separated; undefined when it leaves the workspace. */
function workspaceRelative(workspace: string, target: string): string | undefined {
  const relative = path.relative(workspace, path.resolve(workspace, target));
  if (relative === '') return '.';
  if (relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) return undefined;
  return relative.split(path.sep).join('/');
}

function stringField(input: unknown, field: string): string | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const value = (input as Record<string, unknown>)[field];
  return typeof value === 'string' ? value : undefined;
}
