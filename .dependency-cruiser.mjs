// The layers of src/, lowest first (docs/architecture.md, "Layers"). A module may import modules of its
// own layer and of the layers below it, never of a layer above: `npm run lint:layers` checks it.
const layers = [
  { name: 'core', holds: 'shared types and the smallest helpers', paths: ['^src/core/', '^src/secrets/', '^src/text/', '^src/net/'] },
  { name: 'tools', holds: 'the built-in tools', paths: ['^src/tools/'] },
  {
    name: 'policies',
    holds: 'context, resilience, cost, approval and error rules',
    paths: ['^src/context/', '^src/resilience/', '^src/cost/', '^src/approval/', '^src/errors/'],
  },
  { name: 'model-call', holds: 'one model call: the step functions and what they use of the AI SDK', paths: ['^src/model-call/'] },
  { name: 'actors', holds: "the machine's invoked actors", paths: ['^src/actors/'] },
  { name: 'machine', holds: 'the statechart, its guards, updates and implementations', paths: ['^src/machine/'] },
  { name: 'records', holds: 'what a run leaves: stores, session records, traces, results, reading a session back (time travel)', paths: ['^src/persistence/', '^src/trace/', '^src/results/', '^src/time-travel/'] },
  {
    name: 'agent',
    holds: 'the agent facade, its options and observers, the session chart and its host',
    paths: ['^src/(?!index\\.ts$|cli\\.ts$)[^/]+\\.ts$', '^src/session/', '^src/telemetry/', '^src/subagents/'],
  },
  { name: 'scale', holds: 'sessions advanced turn by turn across processes', paths: ['^src/scale/'] },
  {
    name: 'adapters',
    holds: 'the subpaths that connect the agent to the outside',
    paths: ['^src/ai-sdk/', '^src/postgres/', '^src/dbos/', '^src/redis/', '^src/mcp/', '^src/inspect/', '^src/report/', '^src/playback/', '^src/test/', '^src/text-tools/'],
  },
  { name: 'entries', holds: 'the package root and the CLI', paths: ['^src/index\\.ts$', '^src/cli\\.ts$', '^src/cli/'] },
];

const upwardImportRules = layers.slice(0, -1).map((layer, index) => ({
  name: `layer-${layer.name}-points-down`,
  comment: `${layer.name} (${layer.holds}) imports only from its own layer and the ones below: ${layers
    .slice(0, index + 1)
    .map(({ name }) => name)
    .join(', ')}.`,
  severity: 'error',
  from: { path: layer.paths },
  to: { path: layers.slice(index + 1).flatMap(({ paths }) => paths) },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    ...upwardImportRules,
    {
      name: 'every-module-has-a-layer',
      comment: 'A new folder or root file of src/ is given a layer in .dependency-cruiser.mjs and docs/architecture.md.',
      severity: 'error',
      from: { path: '^src/', pathNot: layers.flatMap(({ paths }) => paths) },
      to: {},
    },
    {
      name: 'no-circular',
      comment: 'No import cycles, type-only imports included.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
