/**
 * A soak run's verdict as text: one summary table per seed, then every violation (grouped by
 * check) and the duplicates that were allowed, so a failure can be read without the run's files.
 *
 * @example
 * for (const line of formatSoakRun(run)) console.log(line);
 */
import type { CheckName } from './soak-checks.js';
import type { SoakRun } from './soak-run.js';

const SHOWN_PER_CHECK = 15;

export function formatSoakRun(run: SoakRun): string[] {
  const { options } = run.schedule;
  const { counts, violations, excused } = run.verdict;
  const status = violations.length === 0 ? 'passed' : `FAILED (${violations.length} violation${violations.length === 1 ? '' : 's'})`;
  const row = (name: string, text: string) => `  ${name.padEnd(11)} ${text}`;
  const lines = [
    '',
    `soak seed ${options.seed}: ${options.durationMs / 1000} s, ${options.sessions} sessions, ${options.workers} workers, ${(run.elapsedMs / 1000).toFixed(0)} s in all: ${status}`,
    row('faults', `${counts.workersKilled} kills, ${counts.pauses} pauses, ${counts.cuts} cuts, ${counts.stalls} stalls; ${counts.workersStarted} workers started, ${counts.workersDied} died on their own`),
    row('effects', `${counts.toolCalls} tool calls, ${counts.effects} effects: again ${counts.duplicatesKilled} after a kill, ${counts.duplicatesDied} after a crash, ${counts.duplicatesPaused} after a pause, ${counts.duplicatesCut} after a cut (allowed), ${counts.duplicatesOther} otherwise`),
    row('inputs', `${counts.inputsSent} sent, ${counts.inputsAccepted} accepted: ${counts.inputsApplied} applied, ${counts.inputsRejected} rejected, ${counts.inputsLost} lost, ${counts.inputsDoubled} doubled`),
    row('histories', `${counts.historiesValid}/${counts.sessions} valid`),
    row('terminal', `${counts.sessionsTerminal}/${counts.sessions} sessions terminal; ${run.drained ? 'every turn ended in the quiet period' : 'turns were still in progress when the quiet period ran out'}`),
    row('epochs', `${counts.streamEntries} stream entries, ${counts.epochRegressions} regressions`),
  ];
  if (run.dir) lines.push(row('files', run.dir));
  const byCheck = new Map<CheckName, typeof violations>();
  for (const violation of violations) byCheck.set(violation.check, [...(byCheck.get(violation.check) ?? []), violation]);
  for (const [check, found] of byCheck) {
    lines.push(`  ${check} violations (${found.length}):`);
    for (const violation of found.slice(0, SHOWN_PER_CHECK)) lines.push(`    ${violation.sessionId ? `[${violation.sessionId}] ` : ''}${violation.detail}`);
    if (found.length > SHOWN_PER_CHECK) lines.push(`    … and ${found.length - SHOWN_PER_CHECK} more`);
  }
  if (excused.length > 0) {
    lines.push(`  allowed duplicates (${excused.length}):`);
    for (const entry of excused.slice(0, 5)) lines.push(`    [${entry.sessionId}] ${entry.detail}`);
    if (excused.length > 5) lines.push(`    … and ${excused.length - 5} more`);
  }
  return lines;
}
