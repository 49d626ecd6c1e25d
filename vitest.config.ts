import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/** package.json "exports", by import name, as source files (kept in step with tsconfig.json "paths"). */
const packageEntries = {
  'loopchart': './src/index.ts',
  'loopchart/test': './src/test/index.ts',
  'loopchart/tools': './src/tools/index.ts',
  'loopchart/report': './src/report/index.ts',
  'loopchart/inspect': './src/inspect/index.ts',
  'loopchart/text-tools': './src/text-tools/index.ts',
  'loopchart/machine': './src/machine/index.ts',
  'loopchart/ai-sdk': './src/ai-sdk/index.ts',
  'loopchart/postgres': './src/postgres/index.ts',
  'loopchart/dbos': './src/dbos/index.ts',
  'loopchart/redis': './src/redis/index.ts',
  'loopchart/mcp': './src/mcp/index.ts',
};

/** Tests that run an agent end to end: they run once per step implementation. */
const agentTests = [
  'test/agent-*.test.ts',
  'test/machine.test.ts',
  'test/resilience.test.ts',
  'test/resilience-http.test.ts',
  'test/human-in-the-loop.test.ts',
  'test/context-management.test.ts',
  'test/trace.test.ts',
  'test/inspector.test.ts',
  'test/persistence/sessions.test.ts',
  'test/text-tools/agent-text-tools.test.ts',
  'test/at-mentions.test.ts',
  'test/subagents.test.ts',
  'test/ai-sdk-agent.test.ts',
];

export default defineConfig({
  resolve: {
    // The package's entry points (package.json "exports") as their sources, matched exactly.
    alias: Object.entries(packageEntries).map(([name, source]) => ({ find: new RegExp(`^${name}$`), replacement: here(source) })),
  },
  test: {
    globalSetup: ['./test/support/temp-dir-guard.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: { name: 'default', include: ['test/**/*.test.ts'], env: { LOOPCHART_EXPECTED_STEP: 'directStep' } },
      },
      {
        extends: true,
        resolve: {
          alias: [{ find: /^\.\.\/model-call\/default-step\.js$/, replacement: here('./test/support/sdk-default-step.ts') }],
        },
        test: { name: 'sdk-step', include: agentTests, env: { LOOPCHART_EXPECTED_STEP: 'streamLanguageModelCallStep' } },
      },
    ],
  },
});
