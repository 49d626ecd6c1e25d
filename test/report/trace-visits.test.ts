import { describe, expect, it } from 'vitest';
import { agentMachine } from '../../src/machine/agent-machine.js';
import { machineGraph } from '../../src/machine/machine-graph.js';
import { ancestorsAndSelf, traceVisits } from '../../src/report/trace-visits.js';
import { groupTransitions, transitionLabel } from '../../src/report/transition-groups.js';
import { toolLoopTrace } from './support/tool-loop-trace.js';

const graph = machineGraph(agentMachine);
const state = (name: string, enteredAt = 0) => ({ state: name, enteredAt, leftAt: enteredAt });

describe('traceVisits', () => {
  it('counts entries of leaf states and of the compound states around them', () => {
    const visits = traceVisits(
      {
        states: ['idle', 'running.nextStep', 'running.llm.calling', 'running.llm.streaming', 'running.deciding', 'running.retrying', 'running.llm.calling', 'running.deciding'].map((name) => state(name)),
        transitions: [],
      },
      graph,
    );
    expect(Object.fromEntries(visits.stateVisits)).toEqual({
      idle: 1,
      running: 1,
      'running.nextStep': 1,
      'running.llm': 2,
      'running.llm.calling': 2,
      'running.llm.streaming': 1,
      'running.deciding': 2,
      'running.retrying': 1,
    });
  });

  it('counts the takes of each edge, remembers the last one, and lists transitions the graph does not have', () => {
    const visits = traceVisits(
      {
        states: [],
        transitions: [
          { from: 'running.deciding', to: 'running.toolExec', event: 'always', guard: 'wantsTools', at: 1 },
          { from: 'running.deciding', to: 'running.toolExec', event: 'always', guard: 'wantsTools', at: 2 },
          { from: 'running.nowhere', to: 'idle', event: 'always', at: 3 },
          { from: 'running.deciding', to: 'idle', event: 'always', guard: 'isCompletedFinish', at: 4 },
        ],
      },
      graph,
    );
    const index = (guard: string) => graph.edges.findIndex((edge) => edge.guard === guard);
    expect(visits.edgeTakes[index('wantsTools')]).toBe(2);
    expect(visits.edgeTakes[index('isCompletedFinish')]).toBe(1);
    expect(visits.edgeTakes.reduce((sum, taken) => sum + taken, 0)).toBe(3);
    expect(visits.finalEdge).toBe(index('isCompletedFinish'));
    expect(visits.unmatched).toEqual([expect.objectContaining({ from: 'running.nowhere' })]);
  });

  it('matches every transition of a real run to an edge of the machine graph', async () => {
    const trace = await toolLoopTrace();
    const visits = traceVisits(trace, graph);
    expect(visits.unmatched).toEqual([]);
    expect(visits.edgeTakes.reduce((sum, taken) => sum + taken, 0)).toBe(trace.transitions.length);
    expect(visits.stateVisits.get('running.toolExec')).toBe(2);
    expect(visits.stateVisits.get('running.retrying')).toBe(1);
    expect(visits.stateVisits.has('running.awaitingApproval')).toBe(false);
  });

  it('ancestorsAndSelf lists the dotted prefixes', () => {
    expect(ancestorsAndSelf('running.llm.calling')).toEqual(['running', 'running.llm', 'running.llm.calling']);
    expect(ancestorsAndSelf('idle')).toEqual(['idle']);
  });
});

describe('groupTransitions', () => {
  it('groups the edges between the same two states, keeping every edge once, in order', () => {
    const groups = groupTransitions(graph);
    expect(groups.flatMap((group) => group.transitions.map((transition) => transition.index)).sort((a, b) => a - b)).toEqual(graph.edges.map((_, index) => index));
    const endings = groups.find((group) => group.from === 'running.deciding' && group.to === 'idle')!;
    expect(endings.transitions.length).toBeGreaterThan(5);
    expect(new Set(groups.map((group) => `${group.from}>${group.to}`)).size).toBe(groups.length);
  });

  it('labels a transition with its event, guard and outcome', () => {
    expect(transitionLabel({ from: 'a', to: 'b', event: 'always', guard: 'isDoomLoop', outcome: 'doom-loop' })).toBe('always [isDoomLoop] / doom-loop');
    expect(transitionLabel({ from: 'a', to: 'b', event: 'llm.finish' })).toBe('llm.finish');
  });
});
