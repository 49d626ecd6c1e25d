/**
 * Signalling a whole process group, so that a command's children and
 * grandchildren die with it. The command must have been spawned with
 * `detached: true`, which makes its pid the group id.
 */
import { readdir, readFile } from 'node:fs/promises';
import { errorCode } from './fs-errors.js';

const POLL_INTERVAL_MS = 25;

/**
 * Sends `signal` to every process in group `groupId`. Returns false when the
 * group no longer exists.
 */
export function signalProcessGroup(groupId: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-groupId, signal);
    return true;
  } catch (error) {
    if (errorCode(error) === 'ESRCH') return false;
    throw error;
  }
}

/** Sends `signal` to one process; one that has just ended is no error. */
function signalProcess(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch (error) {
    if (errorCode(error) !== 'ESRCH') throw error;
  }
}

/**
 * Parses the state letter and process group id out of a Linux
 * `/proc/<pid>/stat` line. The command name may contain spaces and
 * parentheses, so fields are counted from its closing parenthesis.
 *
 * @example
 * parseProcStat('42 (sleep) S 1 42 7 0') // { state: 'S', processGroupId: 42 }
 */
export function parseProcStat(stat: string): { state: string; processGroupId: number } | undefined {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const state = fields[0];
  const processGroupId = Number(fields[2]);
  if (!state || !Number.isInteger(processGroupId)) return undefined;
  return { state, processGroupId };
}

/** The pids of the group's members that are still running (not zombies), from `/proc`; Linux only. */
async function runningMembers(groupId: number): Promise<number[]> {
  const entries = await readdir('/proc').catch(() => [] as string[]);
  const members: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => undefined);
    const parsed = stat === undefined ? undefined : parseProcStat(stat);
    if (parsed?.processGroupId === groupId && parsed.state !== 'Z') members.push(Number(entry));
  }
  return members;
}

/**
 * True while some process of the group is still running. Zombies (dead but
 * not yet reaped, which happens under an init that does not reap orphans)
 * count as gone; that needs `/proc`, so elsewhere any member counts.
 */
export async function processGroupIsRunning(groupId: number): Promise<boolean> {
  try {
    if (!signalProcessGroup(groupId, 0)) return false;
  } catch {
    return true;
  }
  if (process.platform !== 'linux') return true;
  if (!(await readdir('/proc').then(() => true, () => false))) return true;
  return (await runningMembers(groupId)).length > 0;
}

/**
 * Terminates a process group: SIGTERM, then SIGKILL if anything is still
 * running after `graceMs`. Resolves once the group is gone or SIGKILL was sent.
 *
 * `spareLeaderFromSigterm` (Linux): the group's leader gets only the SIGKILL.
 * For a sandbox's `bwrap`, which would die of the SIGTERM at once and take
 * the command down with it (`--die-with-parent`), leaving it no grace period.
 *
 * @example
 * const child = spawn('bash', ['-c', command], { detached: true });
 * await killProcessGroup(child.pid!, 1000);
 */
export async function killProcessGroup(groupId: number, graceMs: number, { spareLeaderFromSigterm = false } = {}): Promise<void> {
  if (spareLeaderFromSigterm && process.platform === 'linux') {
    if (!signalProcessGroup(groupId, 0)) return;
    for (const pid of await runningMembers(groupId)) {
      if (pid !== groupId) signalProcess(pid, 'SIGTERM');
    }
  } else if (!signalProcessGroup(groupId, 'SIGTERM')) return;
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
    if (!(await processGroupIsRunning(groupId))) return;
  }
  signalProcessGroup(groupId, 'SIGKILL');
}

const groupsToKillOnExit = new Set<number>();
let exitHookInstalled = false;

/**
 * Until the returned function is called, SIGKILLs process group `groupId`
 * when this process exits (`process.exit`, an uncaught error, the event loop
 * running dry). A command spawned with `detached: true` is in a group of its
 * own and would otherwise outlive this process. A process killed by a signal
 * it does not handle runs no exit hook, so its groups are left running.
 *
 * @example
 * const forget = killGroupOnExit(child.pid!);
 * child.on('exit', forget);
 */
export function killGroupOnExit(groupId: number): () => void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', () => {
      for (const id of groupsToKillOnExit) {
        try {
          process.kill(-id, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    });
  }
  groupsToKillOnExit.add(groupId);
  return () => void groupsToKillOnExit.delete(groupId);
}
