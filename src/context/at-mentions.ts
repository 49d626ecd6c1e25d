import type { FileHandle } from 'node:fs/promises';
import type { ModelMessage, UserModelMessage } from 'ai';
import type { PromptTransform } from '../core/callbacks.js';

export type { PromptTransform } from '../core/callbacks.js';
import { describeFsError } from '../tools/fs-errors.js';
import { openForReading } from '../tools/workspace.js';
import { listDirectory } from './directory-listing.js';
import { readFileExcerpt } from './file-excerpt.js';
import { findMentions, type Mention } from './mention-syntax.js';
import { resolveMentionTarget, type MentionTarget } from './mention-target.js';
import { z } from 'zod';
import { parseOptions } from '../core/options-check.js';

/** How many entries of a mentioned directory are listed when `maxDirectoryEntries` is not given. */
export const DEFAULT_MENTION_DIRECTORY_ENTRIES = 200;

export interface AtMentionsOptions {
  /** Workspace root: mentions are resolved against it and cannot reach outside it. */
  cwd: string;
  /** Entries listed for a mentioned directory before the rest is summarised. Default 200. */
  maxDirectoryEntries?: number;
}

/** Rewrites the messages of a prompt before a run; it never changes the messages it is given. */

/**
 * A prompt transform that inlines the files and directories a user mentions
 * with `@path`. The user's text stays as written; after it come, in the order
 * of the mentions, a `<file path="…">` block with each file's beginning
 * (numbered and truncated as the `read` tool does), a `<directory path="…">`
 * block with each directory's listing, and a one-line note for each mention
 * that was not inlined and why (missing, outside the workspace, binary). Only
 * user messages are read; `a@b.com` and code in backticks are left alone.
 *
 * @example
 * const inlineMentions = atMentions({ cwd: process.cwd() });
 * const [message] = await inlineMentions([{ role: 'user', content: 'Explain @src/agent.ts' }]);
 * // { role: 'user', content: 'Explain @src/agent.ts\n\n<file path="src/agent.ts">\n     1\timport …\n</file>' }
 */
/** `atMentions`' options; `maxDirectoryEntries` has a check of its own. */
const atMentionsOptionsSchema = z.strictObject({ cwd: z.string().min(1, 'cwd must be a non-empty path'), maxDirectoryEntries: z.unknown().optional() });

export function atMentions(options: AtMentionsOptions): PromptTransform {
  const { cwd } = parseOptions('atMentions', atMentionsOptionsSchema, options);
  const { maxDirectoryEntries = DEFAULT_MENTION_DIRECTORY_ENTRIES } = options;
  if (!Number.isInteger(maxDirectoryEntries) || maxDirectoryEntries < 1) {
    throw new RangeError(`maxDirectoryEntries must be a positive integer, got ${maxDirectoryEntries}`);
  }
  const inlineMention = async (mention: Mention, inlined: Set<string>, signal: AbortSignal | undefined): Promise<string | undefined> => {
    const { target, triedPath } = await resolveFirstCandidate(cwd, mention);
    if (target.kind === 'unavailable') return notInlined(triedPath, target.reason);
    if (inlined.has(target.realPath)) return undefined;
    inlined.add(target.realPath);
    if (target.kind === 'directory') {
      const listing = await listDirectory(target.realPath, target.displayPath, maxDirectoryEntries, signal);
      return `<directory path="${attribute(target.displayPath)}">\n${listing}\n</directory>`;
    }
    // Opened once and checked, as the read tool does: a FIFO or a link swapped in since the check is refused, not waited on or followed.
    let handle: FileHandle;
    try {
      handle = await openForReading(cwd, target.realPath, target.displayPath);
    } catch (error) {
      return notInlined(triedPath, error instanceof Error && !('code' in error) ? error.message : describeFsError(error, target.displayPath).message);
    }
    const excerpt = await readFileExcerpt(handle, target.displayPath, signal).finally(() => handle.close());
    if (excerpt === undefined) return notInlined(triedPath, 'binary file');
    return `<file path="${attribute(target.displayPath)}">\n${excerpt}\n</file>`;
  };

  const inlineMentionsOf = async (message: UserModelMessage, signal: AbortSignal | undefined): Promise<UserModelMessage> => {
    const texts = typeof message.content === 'string' ? [message.content] : message.content.flatMap((part) => (part.type === 'text' ? [part.text] : []));
    const mentions = findMentions(texts.join('\n'));
    if (mentions.length === 0) return message;
    const inlined = new Set<string>();
    const blocks: string[] = [];
    for (const mention of mentions) {
      signal?.throwIfAborted();
      const block = await inlineMention(mention, inlined, signal);
      if (block !== undefined) blocks.push(block);
    }
    if (blocks.length === 0) return message;
    const appended = blocks.join('\n\n');
    if (typeof message.content === 'string') return { ...message, content: `${message.content}\n\n${appended}` };
    return { ...message, content: [...message.content, { type: 'text', text: appended }] };
  };

  return async (messages, { signal } = {}) => {
    const transformed: ModelMessage[] = [];
    for (const message of messages) transformed.push(message.role === 'user' ? await inlineMentionsOf(message, signal) : message);
    return transformed;
  };
}

/** The first candidate path that names a file or directory; else why the last one did not. */
async function resolveFirstCandidate(cwd: string, mention: Mention): Promise<{ target: MentionTarget; triedPath: string }> {
  let last: { target: MentionTarget; triedPath: string } | undefined;
  for (const candidate of mention.candidates) {
    last = { target: await resolveMentionTarget(cwd, candidate), triedPath: candidate };
    if (last.target.kind !== 'unavailable') return last;
  }
  return last ?? { target: { kind: 'unavailable', reason: 'no such file or directory' }, triedPath: mention.written.slice(1) };
}

function notInlined(mentionedPath: string, reason: string): string {
  return `[@${mentionedPath} not inlined: ${reason}]`;
}

function attribute(value: string): string {
  return value.replaceAll('&', '&amp;').replaceAll('"', '&quot;');
}
