import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { agentMachine } from '../src/machine/agent-machine.js';
import { ARCHITECTURE, withDiagram } from '../scripts/generate-docs.js';

describe('docs', () => {
  it('the committed statechart diagram matches the machine definition (run `npm run docs` to refresh)', async () => {
    const markdown = await readFile(ARCHITECTURE, 'utf8');
    expect(markdown).toBe(withDiagram(markdown));
  });

  it('the guard tables name every guard of the chart', async () => {
    const markdown = await readFile(ARCHITECTURE, 'utf8');
    const tableRows = markdown.split('\n').filter((line) => line.trimStart().startsWith('|'));
    const guards = Object.keys(agentMachine.implementations.guards);
    expect(guards.length).toBeGreaterThan(20);
    expect(guards.filter((guard) => !tableRows.some((row) => row.includes(`\`${guard}\``)))).toEqual([]);
  });
});
