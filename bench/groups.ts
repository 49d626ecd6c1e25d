/**
 * The benchmark groups `npm run bench` runs, each in processes of its own (bench/group-child.ts).
 * A group's module is loaded only in the process that runs it, so no group pays for another's
 * imports. `npm run bench -- inspector telemetry` chooses the groups whose name has one of the words.
 */
import type { Row } from './support.js';

export interface BenchGroup {
  name: string;
  load: () => Promise<() => Promise<Row[]>>;
}

export const benchGroups: readonly BenchGroup[] = [
  { name: 'stream throughput', load: async () => (await import('./stream.js')).streamBench },
  { name: 'loop overhead (with the XState baseline)', load: async () => (await import('./loop.js')).loopBench },
  { name: 'xstate alone', load: async () => (await import('./xstate-alone.js')).xstateAloneBench },
  { name: 'memory', load: async () => (await import('./memory.js')).memoryBench },
  { name: 'parallel tools', load: async () => (await import('./parallel.js')).parallelBench },
  { name: 'many tool calls in one step', load: async () => (await import('./many-calls.js')).manyCallsBench },
  { name: 'many agents at once', load: async () => (await import('./many-agents.js')).manyAgentsBench },
  { name: 'session append', load: async () => (await import('./persistence.js')).persistenceBench },
  { name: 'cost as the history grows', load: async () => (await import('./history-growth.js')).historyGrowthBench },
  { name: 'text tool blocks', load: async () => (await import('./text-tool-blocks.js')).textToolBlocksBench },
  { name: 'V8 allocation-site pretenuring', load: async () => (await import('./pretenuring.js')).pretenuringBench },
  { name: 'inspector overhead', load: async () => (await import('./inspector.js')).inspectorBench },
  { name: 'telemetry overhead', load: async () => (await import('./telemetry.js')).telemetryBench },
  { name: 'scale-out on PostgreSQL', load: async () => (await import('./scale-out.js')).scaleOutBench },
  { name: 'session size', load: async () => (await import('./session-size.js')).sessionSizeBench },
];

/** The groups whose name has one of `words` (every group when there are none). */
export function chooseGroups(words: readonly string[]): BenchGroup[] {
  const lower = words.map((word) => word.toLowerCase());
  return lower.length === 0 ? [...benchGroups] : benchGroups.filter(({ name }) => lower.some((word) => name.includes(word)));
}
