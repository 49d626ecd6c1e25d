/**
 * The bubblewrap (`bwrap`) command line that confines one command. Pure: the
 * paths must already be real (symbolic links resolved) and exist.
 */

export interface BubblewrapConfinement {
  /** The workspace: writable, and the command's working directory. */
  workspace: string;
  /** More directories the command may write. */
  writable: readonly string[];
  /**
   * Directories inside `/tmp` that the private `/tmp` would hide, shown read-only at the same path:
   * the ones on the command's `PATH` and the command's own (`programDirectories`).
   * @default []
   */
  readOnly?: readonly string[];
  /** Keep the host's network; otherwise the command gets a network namespace with only its own loopback. */
  network: boolean;
  /** Forbid user namespaces inside (`--disable-userns`, bubblewrap 0.8 and later). */
  disableUserNamespaces: boolean;
  /** The working directory inside; default the workspace. */
  cwd?: string;
}

/** Mounts that a writable bind must not cover: binding `/` would bring back the host's `/proc`, and with it every process's environment. */
const KEPT_MOUNTS = ['/proc', '/dev'];

/**
 * The `bwrap` arguments up to and including `--`; the command and its
 * arguments follow. What they do:
 *
 * - the whole file system read-only (`--ro-bind / /`), with a fresh `/dev`, a
 *   private empty `/tmp` (and `TMPDIR=/tmp`), the `readOnly` directories
 *   bound read-only in it, and the workspace and the `writable` directories
 *   bound read-write over it all;
 * - a fresh `/proc` in a new PID namespace: only the command's own processes
 *   exist there, so no other process's environment or command line can be
 *   read; new user, IPC, UTS and cgroup namespaces too, and a new network
 *   namespace unless `network`;
 * - every capability dropped (a root caller keeps them all otherwise, and
 *   could remount `/` read-write), no nested user namespaces when supported,
 *   and the command killed when its parent dies.
 *
 * No `--new-session`: the caller starts bwrap in a session and process group
 * of its own (`detached`), without a terminal, so the whole group can be
 * signalled and no terminal is there to inject input into.
 *
 * @example
 * bubblewrapArguments({ workspace: '/home/me/ws', writable: [], network: false, disableUserNamespaces: true })
 * // ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', '--bind', '/home/me/ws', '/home/me/ws', …, '--']
 * @throws Error for a writable directory that is `/` or inside `/proc` or `/dev`: the sandbox cannot make it writable and still hide other processes.
 */
export function bubblewrapArguments(confinement: BubblewrapConfinement): string[] {
  const { workspace, writable, readOnly = [], network, disableUserNamespaces, cwd = workspace } = confinement;
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp'];
  for (const directory of readOnly) args.push('--ro-bind', directory, directory);
  // After the /tmp mount, so that a workspace inside /tmp is the real one, not a directory of the empty /tmp.
  for (const directory of [workspace, ...writable]) {
    if (directory === '/' || KEPT_MOUNTS.some((mount) => directory === mount || directory.startsWith(`${mount}/`))) {
      throw new Error(`The sandbox cannot make ${directory} writable (it would uncover the host's processes or devices); choose a narrower directory`);
    }
    args.push('--bind', directory, directory);
  }
  args.push('--unshare-user', '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try');
  if (!network) args.push('--unshare-net');
  if (disableUserNamespaces) args.push('--disable-userns');
  args.push('--cap-drop', 'ALL', '--die-with-parent', '--setenv', 'TMPDIR', '/tmp', '--chdir', cwd, '--');
  return args;
}
