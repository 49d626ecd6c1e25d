import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

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
    alias: { loopchart: here('./src/index.ts') },
  },
  test: {
    globalSetup: ['./test/support/temp-dir-guard.ts'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: { name: 'default', include: ['test/**/*.test.ts'], env: { LOOPCHART_EXPECTED_STEP: 'directStep' } },
      },
      {
        extends: true,
        resolve: {
          alias: [{ find: /^\.\/actors\/default-step\.js$/, replacement: here('./test/support/sdk-default-step.ts') }],
        },
        test: { name: 'sdk-step', include: agentTests, env: { LOOPCHART_EXPECTED_STEP: 'streamLanguageModelCallStep' } },
      },
    ],
  },
});
