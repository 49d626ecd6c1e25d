import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repository = fileURLToPath(new URL('..', import.meta.url));
const depcruise = join(repository, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');
const config = join(repository, '.dependency-cruiser.mjs');

interface Cruise {
  status: number | null;
  modules: number;
  violations: Array<{ rule: string; from: string; to: string }>;
}

/** `npm run lint:layers` (the same program, rules and report), in `cwd`. */
function cruise(cwd: string): Cruise {
  const run = spawnSync(process.execPath, [depcruise, 'src', '--config', config], { cwd, encoding: 'utf8' });
  if (run.error) throw run.error;
  const summary = /(\d+) modules, \d+ dependencies cruised/.exec(run.stdout);
  if (!summary) throw new Error(`depcruise printed no summary: ${run.stdout}${run.stderr}`);
  // One line per violation: "error RULE: FROM → TO" (a cycle goes on, one module a line).
  const violations = [...run.stdout.matchAll(/^\s*error (\S+): (\S+) → ?(\S*)$/gm)].map(([, rule, from, to]) => ({ rule: rule!, from: from!, to: to! }));
  return { status: run.status, modules: Number(summary[1]), violations };
}

/** The layer check on a small tree of its own: `files` by path under a temporary directory, removed afterwards. */
function cruiseTree(files: Record<string, string>): Cruise {
  const root = mkdtempSync(join(tmpdir(), 'loopchart-layers-'));
  try {
    writeFileSync(join(root, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true } }));
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    return cruise(root);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

describe('layers that only point down (.dependency-cruiser.mjs, run by npm test)', () => {
  it('src keeps them: no import runs from a lower layer to a higher one, none makes a cycle, every module has a layer', { timeout: 120_000 }, () => {
    const { status, modules, violations } = cruise(repository);
    expect(violations).toEqual([]);
    expect(status).toBe(0);
    expect(modules).toBeGreaterThan(100);
  });

  it('an import down a layer passes', () => {
    const result = cruiseTree({
      'src/core/names.ts': "export const agentName = 'a';\n",
      'src/agent.ts': "import { agentName } from './core/names.js';\nexport const name = agentName;\n",
    });
    expect(result.violations).toEqual([]);
    expect(result.status).toBe(0);
  });

  it('an import up a layer fails, naming the rule and the import', () => {
    const result = cruiseTree({
      'src/agent.ts': "export const agentName = 'a';\n",
      'src/core/names.ts': "import { agentName } from '../agent.js';\nexport const name = agentName;\n",
    });
    expect(result.violations).toEqual([{ rule: 'layer-core-points-down', from: 'src/core/names.ts', to: 'src/agent.ts' }]);
    expect(result.status).not.toBe(0);
  });

  it('a type-only import up a layer fails too', () => {
    const result = cruiseTree({
      'src/machine/context.ts': 'export interface AgentContext { messages: string[] }\n',
      'src/actors/llm-actor.ts': "import type { AgentContext } from '../machine/context.js';\nexport type Input = AgentContext['messages'];\n",
    });
    expect(result.violations).toEqual([{ rule: 'layer-actors-points-down', from: 'src/actors/llm-actor.ts', to: 'src/machine/context.ts' }]);
    expect(result.status).not.toBe(0);
  });

  it('a cycle inside one layer fails, type-only imports included', () => {
    const result = cruiseTree({
      'src/core/a.ts': "import type { B } from './b.js';\nexport interface A { b?: B }\n",
      'src/core/b.ts': "import type { A } from './a.js';\nexport interface B { a?: A }\n",
    });
    expect(result.violations).toContainEqual(expect.objectContaining({ rule: 'no-circular' }));
    expect(new Set(result.violations.map(({ rule }) => rule))).toEqual(new Set(['no-circular']));
    expect(result.status).not.toBe(0);
  });

  it('a folder that no layer names fails until it is given one', () => {
    const result = cruiseTree({
      'src/core/names.ts': "export const agentName = 'a';\n",
      'src/widgets/widget.ts': "import { agentName } from '../core/names.js';\nexport const name = agentName;\n",
    });
    expect(result.violations).toEqual([{ rule: 'every-module-has-a-layer', from: 'src/widgets/widget.ts', to: 'src/core/names.ts' }]);
    expect(result.status).not.toBe(0);
  });
});
