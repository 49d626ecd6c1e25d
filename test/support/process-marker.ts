/**
 * Finding a command's processes from outside, by a marker in their command
 * line: a sandboxed command's pids are those of its own PID namespace, so the
 * pids it prints mean nothing here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { randomInt } from 'node:crypto';

/** A `sleep` duration no other process uses, e.g. `300.482913`: `sleep ${marker}` marks a process. */
export function uniqueSleepSeconds(): string {
  return `300.${randomInt(100_000, 999_999)}`;
}

/** The host pids of live (not zombie) processes whose command line contains `marker`. */
export function livePidsMarked(marker: string): number[] {
  return livePidsWhere((cmdline) => cmdline.includes(marker));
}

/** The host pids of live `sleep <seconds>` processes. */
export function liveSleeps(seconds: string): number[] {
  return livePidsWhere((cmdline) => cmdline === `sleep ${seconds} `);
}

function livePidsWhere(matches: (cmdline: string) => boolean): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (!matches(cmdline)) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (!stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) pids.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return pids;
}

/** Polls until `condition` holds or `timeoutMs` passes (a generous bound against a hang, not a speed test); returns whether it held. */
export async function eventually(condition: () => boolean, timeoutMs = 20_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return condition();
}
