import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** How long a server that was sent SIGTERM gets before SIGKILL. */
const KILL_AFTER_MS = 2_000;
/** How often a stopping group is looked at: no event says that a process group has emptied. */
const LOOK_EVERY_MS = 25;

/**
 * Whether a server is started in a process group of its own, so that stopping it reaches what it
 * started (`npx` runs the server as its child; a shell script runs its commands as children): on
 * every platform but Windows, which has no process groups.
 */
export const OWN_PROCESS_GROUP = process.platform !== 'win32';

/**
 * The state of each live process of the group whose id is `group`, read from `/proc` on Linux:
 * a zombie no one has reaped yet (its parent went first and PID 1 does not reap) is not live.
 * Elsewhere, whether signal 0 reaches any of the group.
 */
function groupIsLive(group: number): boolean {
  if (process.platform === 'linux') {
    let entries: string[];
    try {
      entries = readdirSync('/proc');
    } catch {
      entries = [];
    }
    if (entries.length > 0) {
      for (const entry of entries) {
        if (!/^\d+$/.test(entry)) continue;
        let stat: string;
        try {
          stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        } catch {
          continue;
        }
        // After the command's `(name)`: state, ppid, pgrp, …
        const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        if (Number(pgrp) === group && state !== 'Z' && state !== 'X') return true;
      }
      return false;
    }
  }
  try {
    process.kill(-group, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** Sends `signal` to the server's whole group (or, without one, to the server). A group that has gone is no error. */
function signalServer(child: ChildProcess, signal: NodeJS.Signals): void {
  if (!OWN_PROCESS_GROUP || child.pid === undefined) {
    child.kill(signal);
    return;
  }
  try {
    process.kill(-child.pid, signal);
  } catch {
    // ESRCH: every process of the group has exited.
  }
}

/**
 * Stops a server started in a group of its own ({@link OWN_PROCESS_GROUP}) and all it started:
 * SIGTERM to the group, SIGKILL to it after {@link KILL_AFTER_MS} if any of it is still there.
 * Resolves once the server and every process of its group have exited, or {@link KILL_AFTER_MS}
 * after the SIGKILL at the latest.
 *
 * @example
 * ```ts
 * const child = spawn('npx', ['-y', '@modelcontextprotocol/server-memory'], { detached: OWN_PROCESS_GROUP });
 * await stopServerGroup(child); // npx and the node it started are gone
 * ```
 */
export function stopServerGroup(child: ChildProcess): Promise<void> {
  const { pid } = child;
  if (pid === undefined) return Promise.resolve();
  const serverIsLive = () => child.exitCode === null && child.signalCode === null;
  const isLive = () => serverIsLive() || (OWN_PROCESS_GROUP && groupIsLive(pid));
  if (!isLive()) return Promise.resolve();
  return new Promise((resolve) => {
    const started = Date.now();
    let killed = false;
    let timer: NodeJS.Timeout | undefined;
    const look = () => {
      timer = undefined;
      if (!isLive()) return finish();
      const elapsed = Date.now() - started;
      if (!killed && elapsed >= KILL_AFTER_MS) {
        killed = true;
        signalServer(child, 'SIGKILL');
      }
      if (elapsed >= 2 * KILL_AFTER_MS) return finish();
      timer = setTimeout(look, LOOK_EVERY_MS);
    };
    const onExit = () => {
      clearTimeout(timer);
      look();
    };
    const finish = () => {
      clearTimeout(timer);
      child.off('exit', onExit);
      resolve();
    };
    child.on('exit', onExit);
    signalServer(child, 'SIGTERM');
    timer = setTimeout(look, LOOK_EVERY_MS);
  });
}

/** The groups of the servers started and not yet stopped: killed should this process exit before it stopped them. */
const unstopped = new Set<number>();
/** Kills every group not yet stopped: a process that exits (a second Ctrl+C, `process.exit`) cannot wait for them. */
const killUnstopped = () => {
  for (const group of unstopped) {
    try {
      process.kill(-group, 'SIGKILL');
    } catch {
      // ESRCH: the group has gone.
    }
  }
};

/**
 * Marks a server's group as one to kill should this process exit before the group was stopped
 * (a second Ctrl+C exits at once): in a group of its own, a server no longer gets the terminal's
 * Ctrl+C with the process that started it, so without this it, and what it started, outlived a
 * process that exited without `close()`. Returns the function that unmarks it, once it was stopped.
 */
export function killOnExit(child: ChildProcess): () => void {
  const group = child.pid;
  if (!OWN_PROCESS_GROUP || group === undefined) return () => undefined;
  if (unstopped.size === 0) process.on('exit', killUnstopped);
  unstopped.add(group);
  return () => {
    if (unstopped.delete(group) && unstopped.size === 0) process.off('exit', killUnstopped);
  };
}
