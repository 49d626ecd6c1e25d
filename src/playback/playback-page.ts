import { agentMachine } from '../machine/agent-machine.js';
import { machineGraph } from '../machine/machine-graph.js';
import { escapeHtml } from '../report/html-escape.js';
import { documentStart, element } from '../report/markup.js';
import { REPORT_STYLE } from '../report/report-style.js';
import { statechartSvg } from '../report/statechart-svg.js';
import { PLAYBACK_STYLE } from './playback-style.js';

let diagram: string | undefined;

/** The report's statechart, drawn once, with nothing visited: the page lights the active state itself. */
function playbackDiagram(): string {
  const graph = machineGraph(agentMachine);
  return (diagram ??= statechartSvg(graph, { stateVisits: new Map(), edgeTakes: graph.edges.map(() => 0), finalEdge: undefined, unmatched: [] }));
}

/** Lays the diagram out now (it takes a moment), so that the first page is served at once. */
export function preparePlaybackPage(): void {
  playbackDiagram();
}

const button = (id: string, label: string, title: string) => element('button', { type: 'button', id, title, 'aria-label': title }, label);

/**
 * The playback page's HTML: the report's statechart, the controls and the panels, empty; its
 * script (`scriptUrl`) fetches the session and fills them. Nothing in it comes from the session
 * but its id, escaped.
 *
 * @example
 * playbackPageHtml({ sessionId: 'chat-42', scriptUrl: '/page.js?token=…', canRun: true }) // '<!doctype html>…<svg class="statechart"…'
 */
export function playbackPageHtml({ sessionId, scriptUrl, canRun }: { sessionId: string; scriptUrl: string; canRun: boolean }): string {
  const controls = element(
    'div',
    { class: 'controls', role: 'toolbar', 'aria-label': 'playback' },
    [
      button('first', '⏮', 'first event (Home)'),
      button('back', '◀', 'step back (←)'),
      button('play', '▶', 'play / pause (space)'),
      button('forward', '▶|', 'step forward (→)'),
      button('last', '⏭', 'last event (End)'),
      element('span', { id: 'position', class: 'mono' }, '–'),
      element('label', { class: 'follow' }, '<input type="checkbox" id="follow" checked> follow the session as it grows'),
    ].join(''),
  );
  const timeline = element(
    'div',
    { id: 'timeline', class: 'pb-timeline' },
    element('div', { id: 'marks', class: 'marks', 'aria-hidden': 'true' }) + '<input type="range" id="scrubber" min="0" max="0" value="0" aria-label="jump to any event">',
  );
  const forkForm = element(
    'form',
    { id: 'fork-form', class: 'fork' },
    [
      element('p', { id: 'fork-from', class: 'muted' }, 'Select a point to fork from.'),
      element('label', {}, 'Message to run on with ' + element('span', { class: 'muted small' }, '(a new prompt at a run’s end; a steer message in the middle of a run)') + '<textarea id="fork-prompt" rows="3"></textarea>'),
      element('label', {}, 'Instructions (system prompt) ' + element('span', { class: 'muted small' }, '(empty: as loopchart open was started)') + '<textarea id="fork-instructions" rows="2"></textarea>'),
      element('label', {}, 'Model ' + element('span', { class: 'muted small' }, '(provider:model-id; empty: loopchart open’s --model)') + '<input id="fork-model" type="text" spellcheck="false">'),
      element('label', {}, 'Edit message ' + element('span', { class: 'muted small' }, '(its index in the history at this point; empty: none)') + '<input id="fork-edit-index" type="number" min="0" step="1">'),
      '<textarea id="fork-edit-text" rows="3" aria-label="the edited message text"></textarea>',
      element('button', { type: 'submit', id: 'fork-run' }, canRun ? 'Run on from here' : 'Fork here (no model to run on)'),
      element('p', { id: 'fork-status', role: 'status' }),
    ].join(''),
  );
  const body = [
    element(
      'header',
      { class: 'summary pb-summary' },
      element('div', { class: 'title-row' }, element('h1', {}, 'loopchart session playback') + element('span', { id: 'session-id', class: 'mono' }, escapeHtml(sessionId)) + element('span', { id: 'outcome', class: 'outcome' }, '…')) +
        element('p', { id: 'forked-from', class: 'muted', hidden: true }) +
        element('ul', { id: 'warnings', class: 'step-warnings', hidden: true }),
    ),
    element(
      'div',
      { class: 'pb-layout' },
      element('section', { class: 'pb-chart' }, controls + timeline + element('div', { id: 'now', class: 'now' }) + element('div', { class: 'diagram-scroll' }, playbackDiagram())) +
        element(
          'aside',
          { class: 'pb-side' },
          [
            element('section', { id: 'step-panel' }, element('h2', {}, 'Step') + element('div', { id: 'step' })),
            element('section', { id: 'context-panel' }, element('h2', {}, 'Context the model sees here') + element('ol', { id: 'context', class: 'messages', start: 0 })),
            element('section', { id: 'messages-panel' }, element('details', {}, element('summary', {}, 'Messages stored at the last checkpoint') + element('ol', { id: 'messages', class: 'messages', start: 0 }))),
            element('section', { id: 'fork-panel' }, element('h2', {}, 'Run on from here') + forkForm),
          ].join(''),
        ),
    ),
  ].join('\n');
  return `${documentStart({ title: `loopchart · ${sessionId}`, style: REPORT_STYLE + PLAYBACK_STYLE, meta: ['<link rel="icon" href="data:,">'] })}
<body data-session="${escapeHtml(sessionId)}" data-can-run="${String(canRun)}">
<main class="pb-main">
${body}
</main>
<script src="${escapeHtml(scriptUrl)}"></script>
</body>
</html>
`;
}
