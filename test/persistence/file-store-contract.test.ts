import { rmSync } from 'node:fs';
import { afterAll } from 'vitest';
import { fileStore } from '../../src/index.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sessionStoreContract } from './store-contract.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

sessionStoreContract('fileStore', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'loopchart-contract-'));
  dirs.push(dir);
  return {
    store: fileStore(dir),
    sameDataElsewhere: () => fileStore(dir),
    deleteBehindItsBack: async (sessionId) => rmSync(`${dir}/${sessionId}.jsonl`),
  };
});
