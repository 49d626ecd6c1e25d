/**
 * The package as an app gets it: `npm pack`, then `npm ci --offline` of a
 * temporary app that depends on the tarball and on its own `ai`, from the npm
 * cache alone (see consumer-lockfile.ts). The app then imports and requires
 * loopchart, typechecks a strict TypeScript program against it under
 * NodeNext and Bundler resolution, runs it, and runs the CLI through npx.
 *
 * When the npm cache lacks a package the app needs, the tests skip with a
 * notice (LOOPCHART_REQUIRE_SERVICES=1 makes that a failure).
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { buildCli } from '../cli/support/cli-process.js';
import { servicesRequired } from '../support/external-binary.js';
import { consumerApp, type LockEntry, type PackageManifest } from './consumer-lockfile.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');
const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as PackageManifest;
const run = promisify(execFile);

/** The environment of npm, node and tsc in the app: without what `npm test` puts there about this project. */
function appEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(npm_package_|npm_lifecycle_|INIT_CWD$)/.test(name)));
  for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'NO_COLOR', 'FORCE_COLOR', 'NODE_OPTIONS']) delete env[name];
  return { ...env, ...extra };
}

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end; a non-zero exit is a result, not an exception. */
async function runIn(cwd: string, command: string, args: string[], env = appEnv()): Promise<Ran> {
  try {
    const { stdout, stderr } = await run(command, args, { cwd, env, maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number | string; stdout?: string; stderr?: string };
    if (typeof failed.code !== 'number') throw error;
    return { code: failed.code, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

const npm = (cwd: string, args: string[], env?: NodeJS.ProcessEnv) => runIn(cwd, 'npm', args, env);
/** `npx --no`: the app's own bin, never a download. */
const npx = (cwd: string, args: string[], env?: NodeJS.ProcessEnv) => runIn(cwd, 'npx', ['--no', '--', ...args], env);
const node = (cwd: string, args: string[], env?: NodeJS.ProcessEnv) => runIn(cwd, process.execPath, args, env);

let dir: string;
let app: string;
/** The `npm pack --json` file list of the tarball. */
let packed: string[];
/** Why the app could not be installed from the cache, when it could not. */
let unavailable: string | undefined;

beforeAll(async () => {
  await buildCli();
  dir = mkdtempSync(path.join(os.tmpdir(), 'loopchart-consumer-'));
  app = path.join(dir, 'app');
  mkdirSync(app);
  // The build is current (buildCli); --ignore-scripts keeps `prepare` from compiling dist/ again under the other tests.
  const pack = await npm(ROOT, ['pack', '--ignore-scripts', '--json', '--pack-destination', dir]);
  if (pack.code !== 0) throw new Error(`npm pack failed:\n${pack.stderr}`);
  const [result] = JSON.parse(pack.stdout) as [{ filename: string; files: { path: string }[] }];
  packed = result.files.map((file) => file.path);

  const tarball = path.join(dir, result.filename);
  const registry = (await npm(ROOT, ['config', 'get', 'registry'])).stdout.trim().replace(/\/?$/, '/');
  const { packageJson, lockfile } = consumerApp({
    projectLock: JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> },
    manifest,
    tarball: { file: path.relative(app, tarball), integrity: `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}` },
    // The app typechecks with skipLibCheck off, so that loopchart's declarations are checked too: it needs Node's types,
    // and @types/json-schema, which @ai-sdk/provider's declarations import without depending on it.
    appDependencies: ['ai', '@types/node', '@types/json-schema'],
    registry,
  });
  writeApp('package.json', JSON.stringify(packageJson, null, 2));
  writeApp('package-lock.json', JSON.stringify(lockfile, null, 2));
  const install = await npm(app, ['ci', '--offline', '--no-audit', '--no-fund']);
  if (install.code !== 0) {
    if (!/ENOTCACHED/.test(install.stderr)) throw new Error(`npm ci --offline failed:\n${install.stderr}`);
    const missing = `the npm cache lacks a package of package-lock.json (run npm ci once with network): ${/npm error request to (\S+)/.exec(install.stderr)?.[1] ?? 'see npm ci'}`;
    if (servicesRequired) throw new Error(`${missing}, and LOOPCHART_REQUIRE_SERVICES=1 makes that a failure.`);
    process.stderr.write(`\n[loopchart tests] SKIPPED, ${missing}: the installed-package tests.\n`);
    unavailable = missing;
  }
}, 600_000);

afterAll(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

function writeApp(file: string, text: string): void {
  writeFileSync(path.join(app, file), text);
}

/** Skips the test when the app could not be installed offline. */
function installed(context: TestContext): void {
  if (unavailable !== undefined) context.skip(unavailable);
}

/** Every directory under `root`'s node_modules trees whose package.json names `name`. */
function packagesNamed(root: string, name: string): string[] {
  const found: string[] = [];
  const visit = (modules: string) => {
    if (!existsSync(modules)) return;
    for (const entry of readdirSync(modules)) {
      if (entry.startsWith('.')) continue;
      const dirs = entry.startsWith('@') ? readdirSync(path.join(modules, entry)).map((scoped) => path.join(modules, entry, scoped)) : [path.join(modules, entry)];
      for (const packageDir of dirs) {
        const file = path.join(packageDir, 'package.json');
        if (existsSync(file) && (JSON.parse(readFileSync(file, 'utf8')) as { name?: string }).name === name) found.push(path.relative(root, packageDir));
        visit(path.join(packageDir, 'node_modules'));
      }
    }
  };
  visit(path.join(root, 'node_modules'));
  return found;
}

describe('the packed package, installed into an app', { timeout: 300_000 }, () => {
  it('installs with the app\'s own ai as the only ai, every dependency and required peer satisfied, and no provider package', (context) => {
    installed(context);
    const installedManifest = JSON.parse(readFileSync(path.join(app, 'node_modules/loopchart/package.json'), 'utf8')) as PackageManifest;
    expect(Object.keys(installedManifest.dependencies ?? {})).not.toContain('ai');
    expect(installedManifest.peerDependencies).toHaveProperty('ai');
    expect(packagesNamed(app, 'ai')).toEqual(['node_modules/ai']);
    for (const provider of ['@ai-sdk/openai', '@ai-sdk/anthropic', '@ai-sdk/google', '@ai-sdk/openai-compatible', '@ai-sdk/mcp']) {
      expect(packagesNamed(app, provider), provider).toEqual([]);
    }
  });

  it('passes npm ls: nothing missing, invalid or unmet', async (context) => {
    installed(context);
    const ls = await npm(app, ['ls', '--all', '--json']);
    expect((JSON.parse(ls.stdout) as { problems?: string[] }).problems ?? []).toEqual([]);
    expect(ls.code).toBe(0);
  });

  it('loads with import and with require, the root and a subpath', async (context) => {
    installed(context);
    const check = "typeof m.createAgent === 'function' && typeof t.scriptedModel === 'function' ? 'ok' : 'missing exports'";
    const esm = await node(app, ['--input-type=module', '-e', `const m = await import('loopchart'); const t = await import('loopchart/test'); console.log(${check});`]);
    expect(esm).toMatchObject({ code: 0, stdout: 'ok\n' });
    const cjs = await node(app, ['--input-type=commonjs', '-e', `const m = require('loopchart'); const t = require('loopchart/test'); console.log(${check});`]);
    expect(cjs).toMatchObject({ code: 0, stdout: 'ok\n' });
  });

  it('typechecks a strict TypeScript app (the README example) under NodeNext and Bundler resolution, and runs it', async (context) => {
    installed(context);
    writeApp('app.ts', readFileSync(path.join(ROOT, 'examples/embedding.ts'), 'utf8'));
    // The AI SDK's own types name fetch's DOM types (HeadersInit, RequestCredentials): an app using ai has the DOM lib.
    const compilerOptions = { target: 'ES2023', lib: ['ES2023', 'DOM'], strict: true, noUncheckedIndexedAccess: true, skipLibCheck: false, types: ['node'] };
    writeApp('tsconfig.nodenext.json', JSON.stringify({ compilerOptions: { ...compilerOptions, module: 'NodeNext', moduleResolution: 'NodeNext', outDir: 'out' }, files: ['app.ts'] }));
    writeApp('tsconfig.bundler.json', JSON.stringify({ compilerOptions: { ...compilerOptions, module: 'ESNext', moduleResolution: 'Bundler', noEmit: true }, files: ['app.ts'] }));
    for (const config of ['tsconfig.nodenext.json', 'tsconfig.bundler.json']) {
      const tsc = await node(app, [TSC, '-p', config]);
      expect({ config, ...tsc }).toEqual({ config, code: 0, stdout: '', stderr: '' });
    }
    const ran = await node(app, ['out/app.js']);
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain('completed after 2 steps');
  });

  it('runs npx loopchart: --version, and the bundled demo on the scripted model without any provider package', async (context) => {
    installed(context);
    expect(await npx(app, ['loopchart', '--version'])).toMatchObject({ code: 0, stdout: `loopchart ${manifest.version}\n` });
    const help = await npx(app, ['loopchart', '--help']);
    const demo = /loopchart run (\S+)/.exec(help.stdout.slice(help.stdout.indexOf('Try it')))?.[1];
    const docs = /Full documentation: (\S+)/.exec(help.stdout)?.[1];
    for (const file of [demo, docs]) expect(file !== undefined && existsSync(file), `${file} from --help`).toBe(true);
    const run = await npx(app, ['loopchart', 'run', demo!, '--json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ outcome: 'completed' });
  });

  it('names the package to install when --model needs a provider package the app lacks', async (context) => {
    installed(context);
    const run = await npx(app, ['loopchart', 'run', 'Say hi', '--model', 'openai:gpt-4o-mini'], appEnv({ OPENAI_API_KEY: 'sk-not-used' }));
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--model openai:gpt-4o-mini needs the package @ai-sdk/openai, which is not installed: npm install @ai-sdk/openai');
  });

  it("ships every source its source maps name (the maps' sources resolve inside the tarball)", (context) => {
    installed(context);
    const files = new Set(packed);
    const maps = packed.filter((file) => file.endsWith('.map'));
    expect(maps.length).toBeGreaterThan(0);
    const unresolved = maps.flatMap((map) => {
      const { sources, sourceRoot = '' } = JSON.parse(readFileSync(path.join(app, 'node_modules/loopchart', map), 'utf8')) as { sources: string[]; sourceRoot?: string };
      return sources.map((source) => path.posix.join(path.posix.dirname(map), sourceRoot, source)).filter((source) => !files.has(source));
    });
    expect(unresolved).toEqual([]);
  });
});
