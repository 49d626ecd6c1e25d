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
 * The message of an error of the AI SDK's MCP client, with what it keeps in
 * its `cause` after it: when the client could not parse a server's answer
 * (it says only `Failed to parse server response`), what was wrong with the
 * answer, as `path: message` (the first issue of the schema; the first
 * branch's, for a union); when an HTTP request failed (`fetch failed`), the
 * network's error (`connect ECONNREFUSED 127.0.0.1:3000`). Pure.
 *
 * @example
 * clientErrorMessage(new Error('Failed to parse server response', { cause: { issues: [{ path: ['tools', 0, 'inputSchema'], message: 'Invalid input: expected object, received undefined' }] } }));
 * // 'Failed to parse server response (tools.0.inputSchema: Invalid input: expected object, received undefined)'
 * clientErrorMessage(new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:3000') }));
 * // 'fetch failed (connect ECONNREFUSED 127.0.0.1:3000)'
 */
export function clientErrorMessage(error: unknown): string {
  const said = errorMessage(error);
  if (!(error instanceof Error)) return said;
  if (said === 'fetch failed' && error.cause instanceof Error && error.cause.message !== '') return `${said} (${error.cause.message})`;
  const issue = firstIssue((error.cause as { issues?: unknown } | undefined)?.issues, []);
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
