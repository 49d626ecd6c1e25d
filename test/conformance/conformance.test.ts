import { describe, expect, it } from 'vitest';
import { contestant } from './contestants.js';
import { knownDifferences } from './differences.js';
import { differences, normalise, type Difference } from './normalise.js';
import { observations, type ObservationName } from './observations.js';
import { scenarios } from './scenarios.js';

/** The scenarios issue 31 asks for; the registry may hold more, never fewer. */
const requiredScenarios = [
  'plain text',
  'one tool',
  'parallel tools',
  'throwing tool',
  'invalid input',
  'unknown tool',
  'reasoning',
  'needsApproval true, approved',
  'needsApproval true, denied',
  'needsApproval function, approved',
  'needsApproval function, denied',
  'toolApproval',
  'Output.object valid',
  'Output.object invalid then valid',
  'stopWhen',
  'prepareStep',
  'abort mid-stream',
  'provider error',
  'provider warnings',
];

/** Whether a listed path (a prefix; `*` stands for any one segment) covers a differing path. */
function covers(path: string, listed: string): boolean {
  if (listed === '') return true;
  const segments = path.split('.');
  const pattern = listed.split('.');
  return pattern.length <= segments.length && pattern.every((segment, index) => segment === '*' || segment === segments[index]);
}

describe('the conformance registry', () => {
  it('holds every scenario the issue names, each once', () => {
    const names = scenarios.map((scenario) => scenario.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual(expect.arrayContaining(requiredScenarios));
  });

  it('every difference listed for all scenarios shows in at least one', async () => {
    for (const entry of knownDifferences.filter((difference) => difference.scenario === '*')) {
      let seen = false;
      for (const scenario of scenarios) {
        const observe = observations[entry.observation];
        const found = differences(
          normalise(await observe(() => contestant('toolLoop', scenario), scenario)),
          normalise(await observe(() => contestant('loopchart', scenario), scenario)),
        );
        if (found.some((difference) => covers(difference.path, entry.path))) {
          seen = true;
          break;
        }
      }
      expect(seen, `${entry.observation} ${entry.path}`).toBe(true);
    }
  });

  it('lists known differences only for scenarios and observations that exist, each with a reason', () => {
    for (const difference of knownDifferences) {
      if (difference.scenario !== '*') expect(scenarios.map((scenario) => scenario.name)).toContain(difference.scenario);
      expect(Object.keys(observations)).toContain(difference.observation);
      expect(difference.reason.length).toBeGreaterThan(20);
    }
  });
});

// Generated from the registry: a scenario added to it is compared on every observation, by both contestants.
describe.each(scenarios)('$name', (scenario) => {
  it.each(Object.keys(observations) as ObservationName[])('%s: loopchart shows an app what ToolLoopAgent shows, but for the listed differences', async (name) => {
    const observe = observations[name];
    const toolLoop = normalise(await observe(() => contestant('toolLoop', scenario), scenario));
    const loopchart = normalise(await observe(() => contestant('loopchart', scenario), scenario));
    const found = differences(toolLoop, loopchart);
    const known = knownDifferences.filter((difference) => (difference.scenario === '*' || difference.scenario === scenario.name) && difference.observation === name);
    const unexplained = found.filter((difference) => !known.some((entry) => covers(difference.path, entry.path)));
    // A difference listed for every scenario need not show in each; one listed for this scenario must.
    const stale = known.filter((entry) => entry.scenario !== '*' && !found.some((difference: Difference) => covers(difference.path, entry.path)));
    if (process.env.CONFORMANCE_DUMP) console.log(JSON.stringify({ scenario: scenario.name, name, toolLoop, loopchart }, null, 1));
    expect(unexplained, 'differences not in test/conformance/differences.ts').toEqual([]);
    expect(stale.map((entry) => entry.path), 'listed differences that no longer exist').toEqual([]);
  });
});
