import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { isWithinRoot, openedPath } from './workspace.js';

/** Reads the `.gitignore` of a workspace directory (`''` is the root), or undefined when it has none. */
export type GitignoreReader = (workspaceDirectory: string) => Promise<string | undefined>;

/**
 * The `.gitignore` files of a workspace on disk. As git does, a `.gitignore`
 * that is a symbolic link is not followed, and one that is not a regular file
 * is passed over: a FIFO would block the read for ever, a link to
 * `/dev/zero` would never end, a link out of the workspace would read a file
 * there.
 *
 * @example
 * const rules = new GitignoreRules(gitignoreFilesIn(realRoot));
 */
export function gitignoreFilesIn(realRoot: string): GitignoreReader {
  return async (directory) => {
    const handle = await open(path.join(realRoot, directory, '.gitignore'), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(() => undefined);
    if (!handle) return undefined;
    try {
      const opened = await openedPath(handle);
      if (opened !== undefined && !isWithinRoot(realRoot, opened)) return undefined;
      if (!(await handle.stat()).isFile()) return undefined;
      return await handle.readFile('utf8');
    } catch {
      return undefined;
    } finally {
      await handle.close();
    }
  };
}

/**
 * The `.gitignore` rules of a workspace, as the search tools apply them: the
 * root's file and every nested one, each for the paths below its directory
 * (the `ignore` package matches each file's rules, as git does). Rules are read
 * once per directory and kept for the life of one tool call. A deeper `!rule`
 * does not bring back what a `.gitignore` higher up ignores.
 *
 * `searched`, the workspace path of the directory a tool was asked to look in,
 * is looked in even when a `.gitignore` ignores it, as ripgrep does (`rg x dist`):
 * the files that ignore it, from the root down, do not apply then (no more
 * of them than need be), and those in it and below it do. Answering that an ignored directory the model named holds nothing
 * would be untrue.
 *
 * @example
 * const rules = new GitignoreRules(gitignoreFilesIn(realRoot));
 * await rules.ignores('dist/index.js'); // true with "dist/" in the root .gitignore
 * await new GitignoreRules(gitignoreFilesIn(realRoot), 'dist').ignores('dist/index.js'); // false: dist was asked for
 */
export class GitignoreRules {
  private readonly byDirectory = new Map<string, Promise<Ignore | undefined>>();
  private firstApplying: Promise<number> | undefined;

  constructor(
    private readonly read: GitignoreReader,
    private readonly searched = '',
  ) {}

  /** Whether a workspace path (relative, `/`-separated) is ignored; `isDirectory` for a directory's own path. */
  async ignores(workspacePath: string, isDirectory = false): Promise<boolean> {
    return this.ignoresFrom(await this.firstApplyingDepth(), workspacePath, isDirectory);
  }

  /**
   * The depth of the first directory whose `.gitignore` applies: 0 (the root) unless the directory searched is ignored,
   * else that of the first one from the root down from which on none ignores the directory searched.
   */
  private firstApplyingDepth(): Promise<number> {
    this.firstApplying ??= (async () => {
      const searched = pathParts(this.searched).join('/');
      let depth = 0;
      while (await this.ignoresFrom(depth, searched, true)) depth += 1;
      return depth;
    })();
    return this.firstApplying;
  }

  private async ignoresFrom(firstDepth: number, workspacePath: string, isDirectory: boolean): Promise<boolean> {
    const parts = pathParts(workspacePath);
    for (let depth = firstDepth; depth < parts.length; depth++) {
      const rules = await this.rulesIn(parts.slice(0, depth).join('/'));
      if (rules?.ignores(parts.slice(depth).join('/') + (isDirectory ? '/' : ''))) return true;
    }
    return false;
  }

  private rulesIn(directory: string): Promise<Ignore | undefined> {
    let rules = this.byDirectory.get(directory);
    if (!rules) {
      rules = this.read(directory).then((text) => (text === undefined ? undefined : ignore().add(text)));
      this.byDirectory.set(directory, rules);
    }
    return rules;
  }
}

function pathParts(workspacePath: string): string[] {
  return workspacePath.split('/').filter((part) => part !== '' && part !== '.');
}
