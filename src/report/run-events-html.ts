import type { RunTrace } from '../core/run-trace.js';
import { formatDuration, formatOffset } from './format-duration.js';
import { escapeHtml } from './html-escape.js';
import { element } from './markup.js';

type Cell = string | { html: string; class?: string };

function table(className: string, headings: readonly string[], rows: readonly Cell[][], empty: string): string {
  if (rows.length === 0) return element('p', { class: 'muted' }, escapeHtml(empty));
  const columnClass = (column: number) => {
    const cell = rows[0]![column];
    return typeof cell === 'object' ? cell.class : undefined;
  };
  const head = element('tr', {}, headings.map((heading, column) => element('th', { class: columnClass(column) }, escapeHtml(heading))).join(''));
  const body = rows
    .map((row) => element('tr', {}, row.map((cell) => (typeof cell === 'string' ? element('td', {}, escapeHtml(cell)) : element('td', { class: cell.class }, cell.html))).join('')))
    .join('');
  return element('table', { class: `events ${className}` }, element('thead', {}, head) + element('tbody', {}, body));
}

const status = (ok: boolean) => ({ html: element('span', { class: `status status-${ok ? 'ok' : 'error'}` }, ok ? 'ok' : 'error') });
const number = (text: string) => ({ html: escapeHtml(text), class: 'num' });

/**
 * The retries: which step, which attempt, when, how long the run waited, and the error that caused it.
 *
 * @example
 * retriesHtml(trace) // '<table class="events retries">…' or a “no retries” line
 */
export function retriesHtml(trace: Pick<RunTrace, 'retries'>): string {
  return table(
    'retries',
    ['step', 'attempt', 'at', 'waited', 'error', 'message'],
    trace.retries.map((retry) => [
      number(String(retry.step)),
      number(String(retry.attempt)),
      number(formatOffset(retry.at)),
      number(formatDuration(retry.delayMs)),
      `${retry.error.kind}${retry.error.status !== undefined ? ` (HTTP ${retry.error.status})` : ''}`,
      retry.error.message,
    ]),
    'No model call was retried.',
  );
}

/**
 * The compactions: why, what was done, the context's size before and after, and how long it took.
 *
 * @example
 * compactionsHtml(trace)
 */
export function compactionsHtml(trace: Pick<RunTrace, 'compactions'>): string {
  return table(
    'compactions',
    ['at', 'reason', 'result', 'tokens before', 'tokens after', 'duration'],
    trace.compactions.map((compaction) => [
      number(formatOffset(compaction.startedAt)),
      compaction.reason,
      compaction.kind ?? 'unfinished',
      number(compaction.tokensBefore.toLocaleString('en-US')),
      number(compaction.tokensAfter !== undefined ? compaction.tokensAfter.toLocaleString('en-US') : '–'),
      number(compaction.durationMs !== undefined ? formatDuration(compaction.durationMs) : '–'),
    ]),
    'The context was not compacted.',
  );
}

/**
 * The hooks that ran: which, for which step, when, how long, and whether they threw.
 *
 * @example
 * hooksHtml(trace)
 */
export function hooksHtml(trace: Pick<RunTrace, 'hooks'>): string {
  return table(
    'hooks',
    ['hook', 'step', 'at', 'duration', 'result', 'message'],
    trace.hooks.map((hook) => [
      { html: element('code', {}, escapeHtml(`${hook.hook}[${hook.index}]`)) },
      number(String(hook.step)),
      number(formatOffset(hook.startedAt)),
      number(formatDuration(hook.durationMs)),
      status(hook.ok),
      hook.message ?? '',
    ]),
    'No hook ran.',
  );
}

/**
 * Every transition the run took, in order, with its time, event and guard.
 *
 * @example
 * transitionsHtml(trace)
 */
export function transitionsHtml(trace: Pick<RunTrace, 'transitions'>): string {
  return table(
    'transitions',
    ['#', 'at', 'from', 'to', 'event', 'guard'],
    trace.transitions.map((transition, index) => [
      number(String(index + 1)),
      number(formatOffset(transition.at)),
      { html: element('code', {}, escapeHtml(transition.from)) },
      { html: element('code', {}, escapeHtml(transition.to)) },
      transition.event,
      transition.guard ?? '',
    ]),
    'The trace has no transitions.',
  );
}
