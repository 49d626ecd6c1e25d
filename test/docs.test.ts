import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { ARCHITECTURE, withDiagram } from '../scripts/generate-docs.js';

describe('docs', () => {
  it('the committed statechart diagram matches the machine definition (run `npm run docs` to refresh)', async () => {
    const markdown = await readFile(ARCHITECTURE, 'utf8');
    expect(markdown).toBe(withDiagram(markdown));
  });
});
