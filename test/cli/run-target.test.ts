import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTarget } from '../../src/cli/run-target.js';
import { tempDir } from './support/scripts.js';

describe('run target', () => {
  it('is a script when the argument is an existing .yaml, .yml or .json file, else a prompt', async () => {
    const dir = await tempDir();
    for (const name of ['a.yaml', 'b.yml', 'c.json', 'D.YAML', 'notes.txt']) await writeFile(path.join(dir, name), '');
    await mkdir(path.join(dir, 'folder.yaml'));
    for (const name of ['a.yaml', 'b.yml', 'c.json', 'D.YAML']) {
      expect(await runTarget(path.join(dir, name))).toEqual({ kind: 'script', file: path.join(dir, name) });
    }
    for (const argument of [path.join(dir, 'notes.txt'), path.join(dir, 'missing.yaml'), path.join(dir, 'folder.yaml'), 'Summarise README.md']) {
      expect(await runTarget(argument)).toEqual({ kind: 'prompt', text: argument });
    }
  });
});
