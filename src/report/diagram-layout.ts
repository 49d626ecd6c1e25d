import type { GraphNode, MachineGraph } from '../machine/machine-graph.js';
import { dagreApi } from './dagre-api.js';
import { clipEnd, clipStart, contains, overlaps, pointAlong, type Box, type Point } from './geometry.js';
import type { TransitionGroup } from './transition-groups.js';

export interface Size {
  width: number;
  height: number;
}

/** How big the diagram's parts are; the renderer knows its fonts, the layout does not. */
export interface DiagramSizing {
  /** The box of a state without children. */
  leaf(node: GraphNode): Size;
  /** The title block at the top of a state with children (its name, its actors, the initial dot). */
  header(node: GraphNode): Size;
  /** The label of a group of transitions. */
  label(group: TransitionGroup): Size;
  /** The copy of a group's target drawn next to its source (see {@link aliasesTarget}). */
  alias(group: TransitionGroup): Size;
}

export interface LaidOutState extends Box {
  node: GraphNode;
  /** True for a state with children, drawn as a container around them. */
  compound: boolean;
  /** Where a compound state's title block goes (inside its box, at the top). */
  header?: Box;
}

export interface LaidOutTransitionGroup {
  group: TransitionGroup;
  /** The arrow, from the source's border to the target's border. */
  points: Point[];
  label: Box;
  /** Where the copy of the target is drawn, when the arrow ends at one instead of the target itself. */
  alias?: Box;
}

/** The arrow from a compound state's initial dot to its initial child. */
export interface LaidOutInitial {
  state: string;
  initial: string;
  points: Point[];
}

export interface DiagramLayout extends Size {
  /** Parents before their children, so that containers are drawn first. */
  states: LaidOutState[];
  transitions: LaidOutTransitionGroup[];
  initials: LaidOutInitial[];
}

export interface LayoutOptions {
  /** Pixels between ranks. Default 40. */
  rankSeparation?: number;
  /** Pixels between nodes of a rank. Default 22. */
  nodeSeparation?: number;
  /** Pixels around the diagram. Default 16. */
  margin?: number;
}

const headerId = (stateId: string) => `#header:${stateId}`;
const aliasId = (groupIndex: number) => `#alias:${groupIndex}`;

/**
 * Whether a group of transitions is drawn to a copy of its target next to its
 * source: transitions from inside a compound state to a top-level state (every
 * way a run ends, back to `idle`) would otherwise cross the whole diagram.
 */
export function aliasesTarget(group: TransitionGroup, nodes: ReadonlyMap<string, GraphNode>): boolean {
  const source = nodes.get(group.from);
  const target = nodes.get(group.to);
  return source?.parent !== undefined && target !== undefined && target.parent === undefined && !group.from.startsWith(`${group.to}.`);
}

/**
 * Lays out the statechart top to bottom with dagre's compound layout: each
 * state with children becomes a cluster around them, topped by a title block
 * from which the arrow to its initial child starts.
 *
 * Dagre cannot route edges to or from a cluster, so a transition that targets
 * a compound state is laid out to its title block, and one that leaves a
 * compound state from its last child; each arrow is then cut where it crosses
 * the compound state's border, so it touches the container, not the child.
 *
 * @example
 * const graph = machineGraph(agentMachine);
 * const diagram = layoutDiagram(graph, groupTransitions(graph), sizing);
 * diagram.states.find((state) => state.node.id === 'running')?.compound // true
 */
export function layoutDiagram(graph: MachineGraph, groups: readonly TransitionGroup[], sizing: DiagramSizing, options: LayoutOptions = {}): DiagramLayout {
  const margin = options.margin ?? 16;
  const children = new Map<string, GraphNode[]>();
  for (const node of graph.nodes) {
    if (node.parent !== undefined) children.set(node.parent, [...(children.get(node.parent) ?? []), node]);
  }
  const isCompound = (id: string) => (children.get(id)?.length ?? 0) > 0;
  const byId = new Map(graph.nodes.map((node) => [node.id, node]));
  /** The dagre node where arrows into a state end: its own box, or a compound state's title block. */
  const entryOf = (id: string) => (isCompound(id) ? headerId(id) : id);
  /** The dagre node arrows out of a state start from: its own box, or a compound state's last child, recursively. */
  const exitOf = (id: string): string => (isCompound(id) ? exitOf(children.get(id)!.at(-1)!.id) : id);

  const g = new dagreApi.Graph({ compound: true, multigraph: true });
  g.setGraph({ rankdir: 'TB', ranksep: options.rankSeparation ?? 40, nodesep: options.nodeSeparation ?? 22, edgesep: 10, marginx: margin, marginy: margin });
  for (const node of graph.nodes) {
    if (isCompound(node.id)) {
      g.setNode(node.id, {});
      g.setNode(headerId(node.id), { ...sizing.header(node) });
      g.setParent(headerId(node.id), node.id);
    } else {
      g.setNode(node.id, { ...sizing.leaf(node) });
    }
  }
  for (const node of graph.nodes) if (node.parent !== undefined && byId.has(node.parent)) g.setParent(node.id, node.parent);

  for (const [parent] of children) {
    const initial = byId.get(parent)?.initial;
    if (initial !== undefined && byId.has(initial)) g.setEdge(headerId(parent), entryOf(initial), { minlen: 1, weight: 2 }, 'initial');
  }
  const aliased = groups.map((group) => aliasesTarget(group, byId));
  groups.forEach((group, index) => {
    const target = aliased[index] ? aliasId(index) : entryOf(group.to);
    if (aliased[index]) {
      g.setNode(target, { ...sizing.alias(group) });
      const parent = byId.get(group.from)?.parent;
      if (parent !== undefined) g.setParent(target, parent);
    }
    g.setEdge(exitOf(group.from), target, { ...sizing.label(group), labelpos: 'c', minlen: 1, weight: 1 }, `group${index}`);
  });

  dagreApi.layout(g);

  const boxOf = (id: string): Box => {
    const { x = 0, y = 0, width = 0, height = 0 } = g.node(id);
    return { x: x - width / 2, y: y - height / 2, width, height };
  };
  const clip = (points: Point[], from: string, to: string): Point[] => {
    let clipped = points;
    if (isCompound(from)) clipped = clipStart(clipped, boxOf(from));
    if (isCompound(to)) clipped = clipEnd(clipped, boxOf(to));
    return clipped;
  };
  const pointsOf = (v: string, w: string, name: string): Point[] => {
    const label = g.edge({ v, w, name }) as { points?: Point[] } | undefined;
    return (label?.points ?? []).map(({ x, y }) => ({ x, y }));
  };

  const states: LaidOutState[] = graph.nodes.map((node) =>
    isCompound(node.id) ? { node, compound: true, ...boxOf(node.id), header: boxOf(headerId(node.id)) } : { node, compound: false, ...boxOf(node.id) },
  );
  const depth = (node: GraphNode): number => (node.parent !== undefined && byId.has(node.parent) ? 1 + depth(byId.get(node.parent)!) : 0);
  states.sort((a, b) => depth(a.node) - depth(b.node));

  const transitions = groups.map((group, index): LaidOutTransitionGroup => {
    const name = `group${index}`;
    const target = aliased[index] ? aliasId(index) : entryOf(group.to);
    const { x = 0, y = 0, width = 0, height = 0 } = g.edge({ v: exitOf(group.from), w: target, name }) ?? {};
    return {
      group,
      points: clip(pointsOf(exitOf(group.from), target, name), group.from, aliased[index] ? target : group.to),
      label: { x: x - width / 2, y: y - height / 2, width, height },
      ...(aliased[index] ? { alias: boxOf(target) } : {}),
    };
  });
  // Dagre placed some labels on the part of an arrow that runs inside a compound end, which is cut off now:
  // move each to the first free spot along what is left of its arrow.
  const misplaced = (laidOut: LaidOutTransitionGroup) => {
    const center = { x: laidOut.label.x + laidOut.label.width / 2, y: laidOut.label.y + laidOut.label.height / 2 };
    return [laidOut.group.from, laidOut.group.to].some((id) => isCompound(id) && contains(boxOf(id), center));
  };
  const taken: Box[] = [
    ...states.filter((state) => !state.compound),
    ...states.flatMap((state) => (state.header ? [state.header] : [])),
    ...transitions.flatMap((laidOut) => [...(laidOut.alias ? [laidOut.alias] : []), ...(misplaced(laidOut) ? [] : [laidOut.label])]),
  ];
  for (const laidOut of transitions.filter(misplaced)) {
    const { width, height } = laidOut.label;
    const candidates = [0.5, 0.35, 0.65, 0.2, 0.8].map((fraction) => {
      const center = pointAlong(laidOut.points, fraction);
      return { x: center.x - width / 2, y: center.y - height / 2, width, height };
    });
    laidOut.label = candidates.find((box) => !taken.some((other) => overlaps(box, other))) ?? candidates[0]!;
    taken.push(laidOut.label);
  }
  const initials: LaidOutInitial[] = [];
  for (const [parent] of children) {
    const initial = byId.get(parent)?.initial;
    if (initial === undefined || !byId.has(initial)) continue;
    const points = pointsOf(headerId(parent), entryOf(initial), 'initial');
    initials.push({ state: parent, initial, points: isCompound(initial) ? clipEnd(points, boxOf(initial)) : points });
  }
  const { width = 0, height = 0 } = g.graph() as { width?: number; height?: number };
  return { width, height, states, transitions, initials };
}
