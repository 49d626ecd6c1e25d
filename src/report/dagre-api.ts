import * as dagre from '@dagrejs/dagre';

/** A node, edge or graph label as dagre reads and writes it: sizes in, positions out. */
export interface DagreLabel {
  width?: number;
  height?: number;
  x?: number;
  y?: number;
  points?: Array<{ x: number; y: number }>;
  [key: string]: unknown;
}

/** The part of a dagre (graphlib) graph the diagram layout uses. */
export interface DagreGraph {
  setGraph(label: DagreLabel): void;
  setNode(id: string, label: DagreLabel): void;
  setParent(id: string, parent: string): void;
  setEdge(v: string, w: string, label: DagreLabel, name: string): void;
  node(id: string): DagreLabel;
  edge(edge: { v: string; w: string; name: string }): DagreLabel | undefined;
  graph(): DagreLabel;
}

interface DagreModule {
  Graph: new (options: { compound: boolean; multigraph: boolean }) => DagreGraph;
  layout(graph: DagreGraph): void;
}

/**
 * `@dagrejs/dagre`, typed: its bundled declarations use extensionless relative
 * imports, which do not resolve under NodeNext, so its types are restated here
 * for the calls the layout makes.
 *
 * @example
 * const graph = new dagreApi.Graph({ compound: true, multigraph: true });
 * graph.setGraph({ rankdir: 'TB' });
 * dagreApi.layout(graph);
 */
export const dagreApi = dagre as unknown as DagreModule;
