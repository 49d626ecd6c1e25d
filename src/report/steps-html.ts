import type { CallWarning } from 'ai';
import { warningText } from '../trace/call-warnings.js';
import type { TraceStep, TraceToolCall } from '../core/run-trace.js';
import { formatDuration, formatOffset } from './format-duration.js';
import { formatValue } from './format-value.js';
import { escapeHtml } from './html-escape.js';
import { element } from './markup.js';

function fact(name: string, value: string, className = ''): string {
  return element('span', { class: `fact ${className}`.trim() }, element('span', { class: 'fact-name' }, escapeHtml(name)) + escapeHtml(value));
}

function toolCallRow(call: TraceToolCall): string {
  const status = call.durationMs === undefined ? 'pending' : call.isError ? 'error' : 'ok';
  const statusText = status === 'pending' ? 'no result' : status;
  return element(
    'tr',
    { class: `tool-call tool-${status}`, 'data-tool-call-id': call.toolCallId },
    [
      element('td', { class: 'tool-name' }, element('code', {}, escapeHtml(call.toolName)) + element('div', { class: 'muted small' }, escapeHtml(call.toolCallId))),
      element('td', {}, element('pre', { class: 'value' }, escapeHtml(formatValue(call.input)))),
      element('td', { class: 'num' }, escapeHtml(call.durationMs !== undefined ? formatDuration(call.durationMs) : '–') + element('div', { class: 'muted small' }, escapeHtml(formatOffset(call.startedAt)))),
      element('td', {}, element('span', { class: `status status-${status}` }, escapeHtml(statusText))),
      element('td', {}, call.outputPreview !== undefined ? element('pre', { class: 'value' }, escapeHtml(call.outputPreview)) : element('span', { class: 'muted' }, '–')),
    ].join(''),
  );
}

function toolCallsTable(calls: readonly TraceToolCall[]): string {
  if (calls.length === 0) return '';
  const head = element('tr', {}, ['tool', 'input', 'time', 'outcome', 'output (start)'].map((name) => element('th', {}, name)).join(''));
  return element('table', { class: 'tool-calls' }, element('thead', {}, head) + element('tbody', {}, calls.map(toolCallRow).join('')));
}

function warningsList(warnings: readonly CallWarning[] | undefined): string {
  if (!warnings?.length) return '';
  const items = warnings.map((warning) => element('li', { 'data-warning-type': warning.type }, escapeHtml(warningText(warning))));
  return element('ul', { class: 'step-warnings', 'aria-label': 'provider warnings' }, items.join(''));
}

function stepCard(step: TraceStep): string {
  const { inputTokens, outputTokens, totalTokens } = step.usage;
  const facts = [
    fact('finish', step.finishReason ?? 'none', `finish finish-${step.finishReason ?? 'none'}`),
    fact('attempts', String(step.attempts), step.attempts > 1 ? 'warn' : ''),
    fact('tokens', `${totalTokens} (${inputTokens} in · ${outputTokens} out)`),
    fact('first chunk', step.firstChunkMs !== undefined ? formatDuration(step.firstChunkMs) : '–'),
    fact('model', step.modelMs !== undefined ? formatDuration(step.modelMs) : '–'),
    fact('step', step.durationMs !== undefined ? formatDuration(step.durationMs) : 'unfinished'),
    fact('started', formatOffset(step.startedAt)),
  ];
  const reasoning = step.reasoning !== undefined ? element('div', { class: 'step-reasoning' }, escapeHtml(step.reasoning)) : '';
  const text = step.text.length > 0 ? element('div', { class: 'step-text' }, escapeHtml(step.text)) : element('div', { class: 'step-text empty' }, 'no text');
  return element(
    'article',
    { class: 'step', id: `step-${step.step}`, 'data-step': String(step.step) },
    element('header', {}, element('h3', {}, escapeHtml(`Step ${step.step}`)) + element('div', { class: 'facts-inline' }, facts.join(''))) +
      warningsList(step.warnings) +
      reasoning +
      text +
      toolCallsTable(step.toolCalls),
  );
}

/**
 * The steps: for each LLM call its number, attempts, finish reason, usage,
 * time to first chunk and duration, the provider's warnings, its text, and its tool calls with input,
 * duration, outcome and the start of the output. All of it escaped.
 *
 * @example
 * stepsHtml(trace.steps) // '<article class="step" id="step-1" data-step="1">…'
 */
export function stepsHtml(steps: readonly TraceStep[]): string {
  if (steps.length === 0) return element('p', { class: 'muted' }, 'The run made no LLM call.');
  return steps.map(stepCard).join('\n');
}
