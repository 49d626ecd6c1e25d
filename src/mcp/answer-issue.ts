import { errorMessage } from '../core/error-message.js';

/** One issue of a schema the AI SDK's MCP client parses a server's answer with (zod's shape). */
interface Issue {
  code?: unknown;
  path?: unknown;
  message?: unknown;
  /** A union's issues, one list per branch. */
  errors?: unknown;
}

/**
 * The message of an error of the AI SDK's MCP client, with what was wrong
 * with the server's answer after it when the client could not parse that
 * answer: the client says only `Failed to parse server response`, and keeps
 * the schema's issues in its `cause`. The first issue is shown, as `path:
 * message` (the first branch's, for a union). Pure.
 *
 * @example
 * withAnswerIssue(new Error('Failed to parse server response', { cause: { issues: [{ path: ['tools', 0, 'inputSchema'], message: 'Invalid input: expected object, received undefined' }] } }));
 * // 'Failed to parse server response (tools.0.inputSchema: Invalid input: expected object, received undefined)'
 */
export function withAnswerIssue(error: unknown): string {
  const said = errorMessage(error);
  const issues = error instanceof Error ? (error.cause as { issues?: unknown } | undefined)?.issues : undefined;
  const issue = firstIssue(issues, []);
  if (!issue) return said;
  return `${said} (${issue.path.length > 0 ? `${issue.path.join('.')}: ` : ''}${issue.message})`;
}

function firstIssue(issues: unknown, base: readonly string[]): { path: string[]; message: string } | undefined {
  if (!Array.isArray(issues) || issues.length === 0) return undefined;
  const issue = issues[0] as Issue;
  if (typeof issue !== 'object' || issue === null) return undefined;
  const path = [...base, ...(Array.isArray(issue.path) ? issue.path.map((key) => String(key)) : [])];
  const branches = issue.errors;
  if (issue.code === 'invalid_union' && Array.isArray(branches)) {
    const inBranch = firstIssue(branches[0], path);
    if (inBranch) return inBranch;
  }
  return typeof issue.message === 'string' ? { path, message: issue.message } : undefined;
}
