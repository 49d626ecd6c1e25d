import { describe, expect, it } from 'vitest';
import { agentMachine } from '../../src/machine/agent-machine.js';
import { machineGraph, type MachineGraph } from '../../src/machine/machine-graph.js';
import { aliasesTarget, layoutDiagram, type DiagramSizing } from '../../src/report/diagram-layout.js';
import { contains, type Box } from '../../src/report/geometry.js';
import { groupTransitions } from '../../src/report/transition-groups.js';

const sizing: DiagramSizing = {
  leaf: () => ({ width: 100, height: 40 }),
  header: () => ({ width: 120, height: 40 }),
  label: (group) => ({ width: 80, height: 14 * group.transitions.length }),
  alias: () => ({ width: 50, height: 24 }),
};

const inside = (inner: Box, outer: Box) => inner.x >= outer.x && inner.y >= outer.y && inner.x + inner.width <= outer.x + outer.width && inner.y + inner.height <= outer.y + outer.height;
const onBorder = (point: { x: number; y: number }, box: Box) =>
  contains({ x: box.x - 1, y: box.y - 1, width: box.width + 2, height: box.height + 2 }, point) &&
  !contains({ x: box.x + 1, y: box.y + 1, width: box.width - 2, height: box.height - 2 }, point);

describe('layoutDiagram', () => {
  const graph = machineGraph(agentMachine);
  const groups = groupTransitions(graph);
  const diagram = layoutDiagram(graph, groups, sizing);
  const box = (id: string) => diagram.states.find((state) => state.node.id === id)!;

  it('places every state, with leaf states at their size and parents listed before children', () => {
    expect(diagram.states.map((state) => state.node.id).sort()).toEqual(graph.nodes.map((node) => node.id).sort());
    expect(box('running.toolExec')).toMatchObject({ compound: false, width: 100, height: 40 });
    const order = diagram.states.map((state) => state.node.id);
    expect(order.indexOf('running')).toBeLessThan(order.indexOf('running.llm'));
    expect(order.indexOf('running.llm')).toBeLessThan(order.indexOf('running.llm.calling'));
    expect(diagram.width).toBeGreaterThan(0);
    expect(diagram.height).toBeGreaterThan(0);
  });

  it('draws compound states as containers around their children and their title', () => {
    const running = box('running');
    expect(running.compound).toBe(true);
    for (const state of diagram.states.filter((candidate) => candidate.node.parent !== undefined)) expect(inside(state, box(state.node.parent!))).toBe(true);
    expect(inside(running.header!, running)).toBe(true);
    expect(inside(box('running.llm').header!, box('running.llm'))).toBe(true);
    expect(inside(box('idle'), running)).toBe(false);
  });

  it('ends arrows into a compound state at its border, and starts arrows out of one at its border', () => {
    const entering = diagram.transitions.find((laidOut) => laidOut.group.from === 'idle' && laidOut.group.to === 'running')!;
    expect(onBorder(entering.points.at(-1)!, box('running'))).toBe(true);
    const leaving = diagram.transitions.find((laidOut) => laidOut.group.from === 'running.llm' && laidOut.group.to === 'running.deciding')!;
    expect(onBorder(leaving.points[0]!, box('running.llm'))).toBe(true);
    expect(leaving.points.slice(1).every((point) => !contains(box('running.llm'), point) || onBorder(point, box('running.llm')))).toBe(true);
  });

  it('draws transitions from inside running to idle to a copy of idle inside running', () => {
    const endings = diagram.transitions.filter((laidOut) => laidOut.group.to === 'idle');
    expect(endings.length).toBeGreaterThan(3);
    for (const ending of endings) {
      expect(ending.alias).toBeDefined();
      expect(inside(ending.alias!, box('running'))).toBe(true);
    }
    expect(diagram.transitions.find((laidOut) => laidOut.group.from === 'idle')!.alias).toBeUndefined();
  });

  it('draws an initial arrow in each compound state, from its title to its initial child', () => {
    expect(diagram.initials.map((initial) => [initial.state, initial.initial])).toEqual([
      ['running', 'running.preparing'],
      ['running.llm', 'running.llm.calling'],
    ]);
    const toPreparing = diagram.initials[0]!;
    expect(onBorder(toPreparing.points.at(-1)!, box('running.preparing'))).toBe(true);
  });

  it('gives every arrow at least two points and a label box of the asked size', () => {
    for (const laidOut of diagram.transitions) {
      expect(laidOut.points.length).toBeGreaterThanOrEqual(2);
      expect(laidOut.label).toMatchObject({ width: 80, height: 14 * laidOut.group.transitions.length });
    }
  });

  it('copes with a graph without compound states and with a transition into a compound state from its own child', () => {
    const small: MachineGraph = {
      root: 'm',
      nodes: [
        { id: 'a', key: 'a', invokes: [], transient: false },
        { id: 'b', key: 'b', initial: 'b.x', invokes: [], transient: false },
        { id: 'b.x', key: 'x', parent: 'b', invokes: [], transient: false },
      ],
      edges: [
        { from: 'a', to: 'b', event: 'go' },
        { from: 'b.x', to: 'b', event: 'again' },
        { from: 'b', to: 'a', event: 'back' },
        { from: 'a', to: 'a', event: 'self' },
      ],
    };
    const laidOut = layoutDiagram(small, groupTransitions(small), sizing);
    expect(laidOut.transitions).toHaveLength(4);
    expect(laidOut.transitions.every((transition) => transition.points.length > 0)).toBe(true);
  });
});

describe('aliasesTarget', () => {
  const nodes = new Map(machineGraph(agentMachine).nodes.map((node) => [node.id, node]));
  it('is true only for transitions from inside a compound state to a top-level state', () => {
    expect(aliasesTarget({ from: 'running.deciding', to: 'idle', transitions: [] }, nodes)).toBe(true);
    expect(aliasesTarget({ from: 'running.llm', to: 'idle', transitions: [] }, nodes)).toBe(true);
    expect(aliasesTarget({ from: 'idle', to: 'running', transitions: [] }, nodes)).toBe(false);
    expect(aliasesTarget({ from: 'running.deciding', to: 'running.toolExec', transitions: [] }, nodes)).toBe(false);
  });
});
