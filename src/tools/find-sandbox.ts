/**
 * Which sandbox this machine offers: bubblewrap (`bwrap`) on the PATH, tried
 * once with the confinement the tools use, since an installed bwrap may still
 * be refused by the kernel or a container (user namespaces disabled).
 */
import { execFile } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import path from 'node:path';
import { bubblewrapArguments } from './bubblewrap-arguments.js';

/** A sandbox that works here, or why there is none. */
export type FoundSandbox =
  | {
      kind: 'bubblewrap';
      /** The `bwrap` program. */
      path: string;
      /** This bubblewrap has `--disable-userns` (0.8 and later). */
      disableUserNamespaces: boolean;
    }
  | { kind: 'none'; reason: string };

const PROBE_TIMEOUT_MS = 30_000;

const found = new Map<string, Promise<FoundSandbox>>();

/**
 * The sandbox commands can run in here: bubblewrap when `bwrap` is on the
 * PATH and confines a trial command, else `{ kind: 'none', reason }`. Only
 * Linux has one so far (macOS's `sandbox-exec` is not used yet). The answer
 * is kept for each PATH, so the trial runs once per process. Never rejects.
 *
 * @example
 * const sandbox = await findSandbox();
 * if (sandbox.kind === 'none') console.warn(`bash runs unconfined: ${sandbox.reason}`);
 */
export function findSandbox(env: NodeJS.ProcessEnv = process.env): Promise<FoundSandbox> {
  const searchPath = env.PATH ?? '';
  let answer = found.get(searchPath);
  if (answer === undefined) {
    answer = probe(searchPath);
    found.set(searchPath, answer);
  }
  return answer;
}

async function probe(searchPath: string): Promise<FoundSandbox> {
  if (process.platform !== 'linux') {
    return { kind: 'none', reason: `no sandbox is supported on ${process.platform} yet (bubblewrap on Linux only)` };
  }
  const bwrap = await onPath('bwrap', searchPath);
  if (bwrap === undefined) return { kind: 'none', reason: 'bubblewrap (bwrap) is not installed (Debian and Ubuntu: apt-get install bubblewrap)' };
  const full = await tryConfinement(bwrap, true);
  if (full === undefined) return { kind: 'bubblewrap', path: bwrap, disableUserNamespaces: true };
  // Before 0.8 bubblewrap has no --disable-userns; everything else still holds.
  if ((await tryConfinement(bwrap, false)) === undefined) return { kind: 'bubblewrap', path: bwrap, disableUserNamespaces: false };
  return { kind: 'none', reason: `bubblewrap (${bwrap}) cannot confine a command here: ${full}` };
}

/** Runs `true` confined as a command would be; undefined when that worked, else what bwrap said. */
function tryConfinement(bwrap: string, disableUserNamespaces: boolean): Promise<string | undefined> {
  const args = [...bubblewrapArguments({ workspace: '/tmp', writable: [], network: false, disableUserNamespaces }), 'true'];
  return new Promise((resolve) => {
    execFile(bwrap, args, { timeout: PROBE_TIMEOUT_MS, env: {} }, (error, _stdout, stderr) => {
      if (!error) resolve(undefined);
      else resolve(stderr.trim().split('\n')[0] || error.message);
    });
  });
}

async function onPath(name: string, searchPath: string): Promise<string | undefined> {
  for (const dir of searchPath.split(path.delimiter)) {
    if (!path.isAbsolute(dir)) continue;
    const candidate = path.join(dir, name);
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}
