import type { RunTrace } from '../core/run-trace.js';
import { formatDuration } from './format-duration.js';
import { escapeHtml } from './html-escape.js';
import { element } from './markup.js';

const KNOWN_OUTCOMES = new Set(['completed', 'max-steps', 'doom-loop', 'aborted', 'failed', 'context-limit', 'content-filter', 'timeout', 'denied']);

/** The CSS class that colours an outcome; anything unknown gets the neutral one. */
export function outcomeClass(outcome: string): string {
  return KNOWN_OUTCOMES.has(outcome) ? `outcome-${outcome}` : 'outcome-other';
}

const plural = (count: number, noun: string) => `${count.toLocaleString('en-US')} ${noun}${count === 1 ? '' : 's'}`;

/**
 * The top of the report: the outcome, the error if there was one, and the
 * run's figures (id, start, duration, steps, tool calls, tokens, retries).
 *
 * @example
 * summaryHtml(trace, 'Run report') // '<header class="summary">…completed…'
 */
export function summaryHtml(trace: RunTrace, title: string): string {
  const toolCalls = trace.steps.reduce((sum, step) => sum + step.toolCalls.length, 0);
  const failedCalls = trace.steps.reduce((sum, step) => sum + step.toolCalls.filter((call) => call.isError).length, 0);
  const input = trace.steps.reduce((sum, step) => sum + (step.usage.inputTokens ?? 0), 0);
  const output = trace.steps.reduce((sum, step) => sum + (step.usage.outputTokens ?? 0), 0);
  const started = Number.isFinite(trace.startedAt) ? new Date(trace.startedAt) : undefined;
  const facts: Array<[string, string]> = [
    ['duration', formatDuration(trace.durationMs)],
    ['LLM calls', plural(trace.steps.length, 'step')],
    ['tool calls', `${toolCalls}${failedCalls > 0 ? ` (${failedCalls} failed)` : ''}`],
    ['tokens', `${(input + output).toLocaleString('en-US')} (${input.toLocaleString('en-US')} in · ${output.toLocaleString('en-US')} out)`],
    ['retries', String(trace.retries.length)],
    ['compactions', String(trace.compactions.length)],
    ['started', started && !Number.isNaN(started.getTime()) ? started.toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC') : '–'],
    ['run id', trace.runId || '–'],
  ];
  const error = trace.error
    ? element(
        'div',
        { class: 'run-error', role: 'alert' },
        element('span', { class: 'error-kind' }, escapeHtml(`${trace.error.kind}${trace.error.status !== undefined ? ` · HTTP ${trace.error.status}` : ''}`)) +
          element('span', { class: 'error-message' }, escapeHtml(trace.error.message)),
      )
    : '';
  return element(
    'header',
    { class: 'summary' },
    element('div', { class: 'title-row' }, element('h1', {}, escapeHtml(title)) + element('span', { class: `outcome ${outcomeClass(trace.outcome)}`, 'data-outcome': trace.outcome }, escapeHtml(trace.outcome))) +
      error +
      element('dl', { class: 'facts' }, facts.map(([name, value]) => element('div', {}, element('dt', {}, escapeHtml(name)) + element('dd', {}, escapeHtml(value)))).join('')),
  );
}
