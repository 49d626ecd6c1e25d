import { describe, expect, it } from 'vitest';
import { consumerApp, locate, tarballUrl, type LockEntry } from './consumer-lockfile.js';

const registry = 'https://registry.example/';
const projectLock: { packages: Record<string, LockEntry> } = {
  packages: {
    '': { name: 'loopchart', version: '0.1.0' },
    'node_modules/ai': { version: '7.0.1', integrity: 'sha512-ai', dependencies: { '@ai-sdk/provider': '4.0.0' }, peerDependencies: { zod: '^4' } },
    'node_modules/@ai-sdk/provider': { version: '4.0.0', integrity: 'sha512-p' },
    'node_modules/@ai-sdk/openai': { version: '4.0.0', integrity: 'sha512-o' },
    'node_modules/zod': { version: '4.1.0', integrity: 'sha512-z' },
    'node_modules/xstate': { version: '5.0.0', integrity: 'sha512-x', dependencies: { tslib: '^1' }, optionalDependencies: { fsevents: '*' } },
    'node_modules/xstate/node_modules/tslib': { version: '1.0.0', integrity: 'sha512-t1' },
    'node_modules/tslib': { version: '2.0.0', integrity: 'sha512-t2' },
    'node_modules/eslint': { version: '10.0.0', integrity: 'sha512-e', dev: true },
  },
};
const manifest = {
  name: 'loopchart',
  version: '0.1.0',
  dependencies: { xstate: '^5', zod: '^4' },
  peerDependencies: { ai: '7', '@ai-sdk/provider': '4', '@ai-sdk/openai': '4' },
  peerDependenciesMeta: { '@ai-sdk/openai': { optional: true } },
  bin: { loopchart: './dist/cli.js' },
};

describe('consumerApp', () => {
  const { packageJson, lockfile } = consumerApp({ projectLock, manifest, tarball: { file: '../loopchart-0.1.0.tgz', integrity: 'sha512-tgz' }, appDependencies: ['ai'], registry });

  it("depends on the tarball and on the app's own packages at the project's locked versions", () => {
    expect(packageJson.dependencies).toEqual({ loopchart: 'file:../loopchart-0.1.0.tgz', ai: '7.0.1' });
    expect(lockfile.packages['']!.dependencies).toEqual(packageJson.dependencies);
    expect(lockfile.packages['node_modules/loopchart']).toMatchObject({ version: '0.1.0', resolved: 'file:../loopchart-0.1.0.tgz', integrity: 'sha512-tgz', bin: manifest.bin });
  });

  it('locks what loopchart and the app need, where the project has it: dependencies, nested copies, required peers; not optional peers or the rest', () => {
    expect(Object.keys(lockfile.packages).sort()).toEqual([
      '',
      'node_modules/@ai-sdk/provider',
      'node_modules/ai',
      'node_modules/loopchart',
      'node_modules/xstate',
      'node_modules/xstate/node_modules/tslib',
      'node_modules/zod',
    ]);
  });

  it('puts the app\'s devDependencies apart, under the name it is given, with what they need', () => {
    const app = consumerApp({ projectLock, manifest, tarball: { file: 'x.tgz', integrity: '' }, appDependencies: ['ai'], appDevDependencies: ['@ai-sdk/openai'], name: 'app', registry });
    expect(app.packageJson).toMatchObject({ name: 'app', dependencies: { ai: '7.0.1' }, devDependencies: { '@ai-sdk/openai': '4.0.0' } });
    expect(app.lockfile.packages['']).toEqual({ name: 'app', version: '1.0.0', dependencies: app.packageJson.dependencies, devDependencies: { '@ai-sdk/openai': '4.0.0' } });
    expect(app.lockfile.packages).toHaveProperty(['node_modules/@ai-sdk/openai']);
    expect(packageJson).not.toHaveProperty('devDependencies');
  });

  it('gives every registry package its tarball URL, which the npm cache is keyed by', () => {
    expect(lockfile.packages['node_modules/@ai-sdk/provider']).toEqual({ version: '4.0.0', integrity: 'sha512-p', resolved: 'https://registry.example/@ai-sdk/provider/-/provider-4.0.0.tgz' });
    expect(lockfile.packages['node_modules/xstate/node_modules/tslib']!.resolved).toBe(tarballUrl(registry, 'tslib', '1.0.0'));
  });

  it("says which package the project's lockfile lacks", () => {
    expect(() => consumerApp({ projectLock, manifest: { ...manifest, dependencies: { yaml: '^2' } }, tarball: { file: 'x.tgz', integrity: '' }, appDependencies: [], registry })).toThrow(
      "the project's package-lock.json has no yaml for the app",
    );
  });
});

describe('locate', () => {
  it("finds a package as Node does: the dependent's own node_modules first, then each enclosing one", () => {
    expect(locate(projectLock.packages, 'node_modules/xstate', 'tslib')).toBe('node_modules/xstate/node_modules/tslib');
    expect(locate(projectLock.packages, 'node_modules/ai', 'tslib')).toBe('node_modules/tslib');
    expect(locate(projectLock.packages, 'node_modules/xstate/node_modules/tslib', 'zod')).toBe('node_modules/zod');
    expect(locate(projectLock.packages, '', 'left-pad')).toBeUndefined();
  });
});
