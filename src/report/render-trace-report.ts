import type { MachineGraph } from '../machine/machine-graph.js';
import type { RunTrace } from '../core/run-trace.js';
import { escapeHtml } from './html-escape.js';
import { documentStart, element } from './markup.js';
import { REPORT_STYLE } from './report-style.js';
import { compactionsHtml, hooksHtml, retriesHtml, transitionsHtml } from './run-events-html.js';
import { statechartSvg } from './statechart-svg.js';
import { stepsHtml } from './steps-html.js';
import { summaryHtml } from './summary-html.js';
import { timelineHtml } from './timeline-html.js';
import { timelineLanes } from './timeline-lanes.js';
import { traceVisits } from './trace-visits.js';
import { z } from 'zod';
import { parseOptions } from '../core/options-check.js';

export interface TraceReportOptions {
  /** The page's heading and title. Default `loopchart run report`. */
  title?: string;
}

/** `renderTraceReport`'s options, checked whole: a misspelt one is refused, not ignored. */
const traceReportOptionsSchema = z.strictObject({ title: z.string().optional() });

function section(id: string, heading: string, intro: string, content: string, className?: string): string {
  return element('section', { id, class: className }, element('h2', {}, escapeHtml(heading)) + (intro ? element('p', { class: 'section-intro' }, intro) : '') + content);
}

const LEGEND = [
  '<span><span class="swatch visited"></span>state the run entered (×N: how often)</span>',
  '<span><span class="swatch"></span>state it did not enter</span>',
  '<span><span class="swatch line"></span>transition taken</span>',
  '<span><span class="swatch line final"></span>the transition that ended the run</span>',
  '<span><span class="swatch line untaken"></span>not taken</span>',
].join('');

/**
 * One self-contained HTML page about one run: its outcome, the statechart
 * with the states it visited and the transitions it took highlighted, a
 * timeline of its states, its steps with their tool calls, and its retries,
 * compactions and hooks. The page fetches nothing and runs no script (its
 * Content-Security-Policy forbids both): styles are inline, the diagram is an
 * inline SVG laid out here, and every text from the trace is escaped.
 *
 * @example
 * ```ts
 * import { writeFile } from 'node:fs/promises';
 * import { agentMachine, machineGraph } from 'loopchart/machine';
 * import { renderTraceReport } from 'loopchart/report';
 *
 * const result = await agent.run('Fix the typo in README.md.');
 * await writeFile('run.html', renderTraceReport(result.trace!, machineGraph(agentMachine)));
 * ```
 */
export function renderTraceReport(trace: RunTrace, graph: MachineGraph, options: TraceReportOptions = {}): string {
  const { title = 'loopchart run report' } = parseOptions('renderTraceReport', traceReportOptionsSchema, options);
  const visits = traceVisits(trace, graph);
  const unmatched =
    visits.unmatched.length > 0
      ? element(
          'p',
          { class: 'run-error' },
          escapeHtml(
            `${visits.unmatched.length} transition${visits.unmatched.length === 1 ? '' : 's'} of this trace ${visits.unmatched.length === 1 ? 'is' : 'are'} not in this statechart (a trace of another loopchart version?): ${visits.unmatched
              .slice(0, 5)
              .map((transition) => `${transition.from} → ${transition.to} on ${transition.event}`)
              .join('; ')}${visits.unmatched.length > 5 ? '; …' : ''}`,
          ),
        )
      : '';
  const diagram = [
    element('div', { class: 'legend' }, LEGEND),
    '<input type="checkbox" class="toggle" id="fade-untaken"><label for="fade-untaken"> fade what the run did not touch</label> ',
    '<input type="checkbox" class="toggle" id="fit-diagram"><label for="fit-diagram"> fit to width</label>',
    unmatched,
    element('div', { class: 'diagram-scroll' }, statechartSvg(graph, visits)),
  ].join('\n');

  const body = [
    summaryHtml(trace, title),
    element(
      'nav',
      { class: 'contents' },
      [
        ['statechart', 'Statechart'],
        ['timeline', 'Timeline'],
        ['steps', `Steps (${trace.steps.length})`],
        ['retries', `Retries (${trace.retries.length})`],
        ['compactions', `Compactions (${trace.compactions.length})`],
        ['hooks', `Hooks (${trace.hooks.length})`],
        ['transitions', `Transitions (${trace.transitions.length})`],
      ]
        .map(([id, text]) => element('a', { href: `#${id}` }, escapeHtml(text!)))
        .join(''),
    ),
    section(
      'statechart',
      'Statechart',
      'The agent’s statechart, generated from the machine. Every state the run entered and every transition it took is highlighted; a badge counts how often. Hover a state or an arrow for details.',
      diagram,
      'wide',
    ),
    section('timeline', 'Timeline', 'Each state visit as a bar, in proportion to time, with the LLM calls and tool calls below. Hover a bar for its times.', timelineHtml(timelineLanes(trace, graph))),
    section('steps', 'Steps', 'Each LLM call with what it produced, and the tool calls it made.', stepsHtml(trace.steps)),
    section('retries', 'Retries', '', retriesHtml(trace)),
    section('compactions', 'Compactions', '', compactionsHtml(trace)),
    section('hooks', 'Hooks', '', hooksHtml(trace)),
    section('transitions', 'Transitions', '', element('details', {}, element('summary', {}, escapeHtml(`All ${trace.transitions.length} transitions in order`)) + transitionsHtml(trace))),
    element('footer', {}, escapeHtml(`Generated by loopchart from a version ${trace.version} run trace.`)),
  ].join('\n');

  return `${documentStart({
    title: `${title} · ${trace.outcome}`,
    style: REPORT_STYLE,
    meta: [`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`],
  })}
<body>
<main>
${body}
</main>
</body>
</html>
`;
}
