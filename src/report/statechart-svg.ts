import type { GraphNode, MachineGraph } from '../machine/machine-graph.js';
import { layoutDiagram, type DiagramSizing, type LaidOutState, type LaidOutTransitionGroup } from './diagram-layout.js';
import { basisPath } from './geometry.js';
import { escapeHtml } from './html-escape.js';
import { element } from './markup.js';
import { estimateTextWidth } from './text-metrics.js';
import type { TraceVisits } from './trace-visits.js';
import { groupTransitions, transitionLabel, type GroupedTransition } from './transition-groups.js';

const NAME_SIZE = 13;
const NOTE_SIZE = 10.5;
const LABEL_SIZE = 11;
const LABEL_LINE = 14;
const DOT_RADIUS = 5;

const invokesNote = (node: GraphNode) => (node.invokes.length > 0 ? `invokes ${node.invokes.join(', ')}` : '');
const aliasText = (stateId: string) => `→ ${stateId}`;
const takenSuffix = (taken: number) => (taken > 1 ? ` ×${taken}` : '');

/**
 * The statechart as an inline SVG element, laid out at generation time, with
 * what the run did drawn on it: visited states and taken transitions are
 * highlighted, carry `class="visited"` and `data-visited="true"`, and show how
 * often they were entered or taken; the transition that ended the run is
 * marked `final`. Every name in it is escaped.
 *
 * @example
 * const svg = statechartSvg(machineGraph(agentMachine), traceVisits(trace, graph));
 * svg.includes('data-state="running.toolExec"') // true
 */
export function statechartSvg(graph: MachineGraph, visits: TraceVisits): string {
  const groups = groupTransitions(graph);
  const taken = (transition: GroupedTransition) => visits.edgeTakes[transition.index] ?? 0;
  const lineText = (transition: GroupedTransition) => `${transitionLabel(transition.edge)}${takenSuffix(taken(transition))}`;
  const sizing: DiagramSizing = {
    leaf: (node) => ({
      width: Math.max(84, estimateTextWidth(node.key, NAME_SIZE, { bold: true }), estimateTextWidth(invokesNote(node), NOTE_SIZE)) + 28,
      height: node.invokes.length > 0 ? 50 : 36,
    }),
    header: (node) => ({
      width: Math.max(estimateTextWidth(node.key, NAME_SIZE, { bold: true }), estimateTextWidth(invokesNote(node), NOTE_SIZE)) + 56,
      height: 22 + (node.invokes.length > 0 ? 14 : 0) + 2 * DOT_RADIUS,
    }),
    alias: (group) => ({ width: estimateTextWidth(aliasText(group.to), NOTE_SIZE + 1, { bold: true }) + 22, height: 24 }),
    label: (group) => ({
      width: Math.max(...group.transitions.map((transition) => estimateTextWidth(lineText(transition), LABEL_SIZE, { bold: taken(transition) > 0 }))) + 12,
      height: group.transitions.length * LABEL_LINE + 6,
    }),
  };
  const diagram = layoutDiagram(graph, groups, sizing);
  const visitsOf = (id: string) => visits.stateVisits.get(id) ?? 0;

  const containers = diagram.states.filter((state) => state.compound).map((state) => compoundState(state, visitsOf(state.node.id)));
  const initials = diagram.initials.map(({ state, initial, points }) => {
    const visited = visitsOf(initial) > 0;
    const [start] = points;
    return element(
      'g',
      { class: `initial${visited ? ' visited' : ''}`, 'data-state': state, 'data-visited': String(visited) },
      `${element('title', {}, escapeHtml(`initial state of ${state}: ${initial}`))}${start ? element('circle', { cx: start.x, cy: start.y - DOT_RADIUS, r: DOT_RADIUS }) : ''}${element('path', { d: basisPath(points), 'marker-end': `url(#lc-arrow${visited ? '-visited' : ''})` })}`,
    );
  });
  const edges = [...diagram.transitions].sort((a, b) => Number(groupTaken(a, taken) > 0) - Number(groupTaken(b, taken) > 0));
  const arrows = edges.map((laidOut) => transitionArrow(laidOut, taken, visits.finalEdge));
  const leaves = diagram.states.filter((state) => !state.compound).map((state) => leafState(state, visitsOf(state.node.id)));
  const aliases = edges.map((laidOut) => (laidOut.alias ? targetAlias(laidOut, groupTaken(laidOut, taken), visits.finalEdge) : ''));
  const labels = edges.map((laidOut) => transitionLabels(laidOut, taken, visits.finalEdge, lineText));

  const width = Math.ceil(diagram.width);
  const height = Math.ceil(diagram.height);
  return element(
    'svg',
    { class: 'statechart', viewBox: `0 0 ${width} ${height}`, width, height, role: 'img', 'aria-label': 'The agent statechart with the states and transitions of this run highlighted' },
    [markers(), ...containers, ...arrows, ...initials, ...leaves, ...aliases, ...labels].join('\n'),
  );
}

function groupTaken(laidOut: LaidOutTransitionGroup, taken: (transition: GroupedTransition) => number): number {
  return laidOut.group.transitions.reduce((sum, transition) => sum + taken(transition), 0);
}

function markers(): string {
  const arrow = (id: string) =>
    element(
      'marker',
      { id, viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, markerUnits: 'userSpaceOnUse', orient: 'auto-start-reverse' },
      element('path', { d: 'M0,0L10,5L0,10z' }),
    );
  return element('defs', {}, ['lc-arrow', 'lc-arrow-visited', 'lc-arrow-final'].map(arrow).join(''));
}

function stateAttributes(state: LaidOutState, visits: number, kind: string): Record<string, string> {
  const classes = ['state', kind, visits > 0 ? 'visited' : 'unvisited', state.node.transient ? 'transient' : ''].filter(Boolean);
  return { class: classes.join(' '), 'data-state': state.node.id, 'data-visited': String(visits > 0), 'data-visits': String(visits) };
}

function stateTitle(node: GraphNode, visits: number): string {
  const entered = visits === 0 ? 'not entered in this run' : `entered ${visits} time${visits === 1 ? '' : 's'}`;
  const notes = [invokesNote(node), node.transient ? 'transient: leaves at once' : ''].filter(Boolean);
  return element('title', {}, escapeHtml([node.id, entered, ...notes].join(' · ')));
}

function visitBadge(x: number, y: number, visits: number): string {
  if (visits === 0) return '';
  const text = `×${visits}`;
  const width = estimateTextWidth(text, 10.5, { bold: true }) + 10;
  return element(
    'g',
    { class: 'badge' },
    element('rect', { x: x - width / 2, y: y - 9, width, height: 18, rx: 9 }) + element('text', { x, y, 'text-anchor': 'middle', 'dominant-baseline': 'central' }, escapeHtml(text)),
  );
}

function leafState(state: LaidOutState, visits: number): string {
  const { node, x, y, width, height } = state;
  const centerX = x + width / 2;
  const note = invokesNote(node);
  const nameY = note ? y + height / 2 - 7 : y + height / 2;
  return element(
    'g',
    stateAttributes(state, visits, 'leaf'),
    [
      stateTitle(node, visits),
      element('rect', { x, y, width, height, rx: 10 }),
      element('text', { class: 'name', x: centerX, y: nameY, 'text-anchor': 'middle', 'dominant-baseline': 'central' }, escapeHtml(node.key)),
      note ? element('text', { class: 'note', x: centerX, y: nameY + 15, 'text-anchor': 'middle', 'dominant-baseline': 'central' }, escapeHtml(note)) : '',
      visitBadge(x + width - 6, y, visits),
    ].join(''),
  );
}

function compoundState(state: LaidOutState, visits: number): string {
  const { node, x, y, width, height, header } = state;
  const centerX = header ? header.x + header.width / 2 : x + width / 2;
  const top = header ? header.y : y;
  const note = invokesNote(node);
  return element(
    'g',
    stateAttributes(state, visits, 'compound'),
    [
      stateTitle(node, visits),
      element('rect', { x, y, width, height, rx: 14 }),
      element('text', { class: 'name', x: centerX, y: top + 9, 'text-anchor': 'middle', 'dominant-baseline': 'central' }, escapeHtml(node.key)),
      note ? element('text', { class: 'note', x: centerX, y: top + 24, 'text-anchor': 'middle', 'dominant-baseline': 'central' }, escapeHtml(note)) : '',
      visitBadge(x + width - 8, y, visits),
    ].join(''),
  );
}

function targetAlias(laidOut: LaidOutTransitionGroup, total: number, finalEdge: number | undefined): string {
  const { group, alias } = laidOut;
  if (!alias) return '';
  return element(
    'g',
    {
      class: visitClass('alias', total, isFinalGroup(laidOut, finalEdge)),
      'data-alias-of': group.to,
      'data-from': group.from,
      'data-visited': String(total > 0),
    },
    element('title', {}, escapeHtml(`${group.to} (drawn again here, next to ${group.from}, to keep the diagram readable)`)) +
      element('rect', { ...alias, rx: alias.height / 2 }) +
      element('text', { x: alias.x + alias.width / 2, y: alias.y + alias.height / 2, 'text-anchor': 'middle', 'dominant-baseline': 'central' }, escapeHtml(aliasText(group.to))),
  );
}

/** Whether the group holds the run's last transition. */
function isFinalGroup(laidOut: LaidOutTransitionGroup, finalEdge: number | undefined): boolean {
  return laidOut.group.transitions.some((transition) => transition.index === finalEdge);
}

/** A drawn element's classes: what it is, whether the run took it (`visited`/`unvisited`), and `final` for the run's last transition. */
function visitClass(kind: string, taken: number, final: boolean): string {
  return [kind, taken > 0 ? 'visited' : 'unvisited', final ? 'final' : ''].filter(Boolean).join(' ');
}

function transitionArrow(laidOut: LaidOutTransitionGroup, taken: (transition: GroupedTransition) => number, finalEdge: number | undefined): string {
  const { group, points } = laidOut;
  const total = groupTaken(laidOut, taken);
  const final = isFinalGroup(laidOut, finalEdge);
  const marker = final ? 'lc-arrow-final' : total > 0 ? 'lc-arrow-visited' : 'lc-arrow';
  return element(
    'g',
    {
      class: visitClass('transition-group', total, final),
      'data-from': group.from,
      'data-to': group.to,
      'data-visited': String(total > 0),
      'data-taken': String(total),
    },
    element('title', {}, escapeHtml(`${group.from} → ${group.to}${total > 0 ? ` · taken ${total} time${total === 1 ? '' : 's'}` : ''}`)) +
      element('path', { d: basisPath(points), 'marker-end': `url(#${marker})` }),
  );
}

function transitionLabels(
  laidOut: LaidOutTransitionGroup,
  taken: (transition: GroupedTransition) => number,
  finalEdge: number | undefined,
  lineText: (transition: GroupedTransition) => string,
): string {
  const { group, label } = laidOut;
  const total = groupTaken(laidOut, taken);
  const lines = group.transitions.map((transition, line) => {
    const count = taken(transition);
    const final = transition.index === finalEdge;
    return element(
      'text',
      {
        class: ['transition', count > 0 ? 'visited' : 'unvisited', final ? 'final' : ''].filter(Boolean).join(' '),
        'data-from': transition.edge.from,
        'data-to': transition.edge.to,
        'data-event': transition.edge.event,
        'data-guard': transition.edge.guard,
        'data-visited': String(count > 0),
        'data-taken': String(count),
        x: label.x + label.width / 2,
        y: label.y + 3 + LABEL_LINE * line + LABEL_LINE / 2,
        'text-anchor': 'middle',
        'dominant-baseline': 'central',
      },
      escapeHtml(lineText(transition)),
    );
  });
  return element(
    'g',
    { class: `transition-label ${total > 0 ? 'visited' : 'unvisited'}`, 'data-from': group.from, 'data-to': group.to },
    element('rect', { x: label.x, y: label.y, width: label.width, height: label.height, rx: 4 }) + lines.join(''),
  );
}
