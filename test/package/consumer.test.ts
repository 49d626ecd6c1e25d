/**
 * The package as an app gets it, following the README's Installing section:
 * `npm pack`, then an empty app made by its set-up lines (`npm init -y && npm
 * pkg set type=module`, run as written), into which its `npm install` lines'
 * packages go offline, by `npm ci --offline` from the npm cache alone (see
 * consumer-lockfile.ts; `npm install` would need the registry). The app then
 * runs the README's try-it commands as written (the embedding example, the
 * chat example's demo model, the CLI's bundled demo), imports and requires
 * loopchart, and typechecks a strict TypeScript program against it under
 * NodeNext and Bundler resolution.
 *
 * When the npm cache lacks a package the app needs, the tests skip with a
 * notice (LOOPCHART_REQUIRE_SERVICES=1 makes that a failure).
 */
import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { buildCli } from '../cli/support/cli-process.js';
import { servicesRequired } from '../support/external-binary.js';
import { eventually } from '../support/process-marker.js';
import { UIMessageStreamReader } from '../chat-server/ui-message-stream-reader.js';
import { consumerApp, type LockEntry, type PackageManifest } from './consumer-lockfile.js';
import { commandWords, installingSection, npmInstall } from './readme-install.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');
const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as PackageManifest;
const readme = installingSection(readFileSync(path.join(ROOT, 'README.md'), 'utf8'));
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
/** What `npm ci` printed on stderr. */
let installWarnings = '';
/** The README's `npm install` lines' packages, by where they go. */
const readmePackages = { dependencies: [] as string[], devDependencies: [] as string[] };

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
  for (const line of readme.setUp) {
    const install = npmInstall(line);
    if (install) readmePackages[install.dev ? 'devDependencies' : 'dependencies'].push(...install.packages.filter((name) => name !== 'loopchart'));
    else {
      const ran = await runIn(app, 'sh', ['-c', line]);
      if (ran.code !== 0) throw new Error(`The README's "${line}" failed in an empty directory:\n${ran.stderr}`);
    }
  }
  const initialised = JSON.parse(readFileSync(path.join(app, 'package.json'), 'utf8')) as Record<string, unknown> & { name: string };
  const registry = (await npm(ROOT, ['config', 'get', 'registry'])).stdout.trim().replace(/\/?$/, '/');
  const { packageJson, lockfile } = consumerApp({
    projectLock: JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> },
    manifest,
    tarball: { file: path.relative(app, tarball), integrity: `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}` },
    appDependencies: readmePackages.dependencies,
    // The typecheck below runs with skipLibCheck off, so that loopchart's declarations are checked too: it needs Node's
    // types, and @types/json-schema, which @ai-sdk/provider's declarations import without depending on it.
    appDevDependencies: [...readmePackages.devDependencies, '@types/node', '@types/json-schema'],
    name: initialised.name,
    registry,
  });
  // What `npm install` adds to the package.json that `npm init` made.
  writeApp('package.json', JSON.stringify({ ...initialised, dependencies: packageJson.dependencies, devDependencies: packageJson.devDependencies }, null, 2));
  writeApp('package-lock.json', JSON.stringify(lockfile, null, 2));
  const install = await npm(app, ['ci', '--offline', '--no-audit', '--no-fund']);
  installWarnings = install.stderr;
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

/** Whether a live (not zombie) process of the process group `pgid` is still there. */
function groupAlive(pgid: number): boolean {
  return readdirSync('/proc').some((entry) => {
    if (!/^\d+$/.test(entry)) return false;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, , group] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return state !== 'Z' && Number(group) === pgid;
    } catch {
      return false; // ended while we looked
    }
  });
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

  it("is the app the README's set-up makes: an ES module with its packages, and on Node 20 EBADENGINE warnings for the AI SDK's packages alone", (context) => {
    installed(context);
    const packageJson = JSON.parse(readFileSync(path.join(app, 'package.json'), 'utf8')) as { type?: string; dependencies: object; devDependencies: object };
    expect(packageJson.type).toBe('module');
    expect(Object.keys(packageJson.dependencies)).toEqual(expect.arrayContaining(['loopchart', 'ai', 'zod']));
    expect(Object.keys(packageJson.devDependencies)).toContain('tsx');
    const warned = [...installWarnings.matchAll(/EBADENGINE\s+package: '([^']+)'/g)].map((match) => match[1]!);
    if (Number(process.versions.node.split('.')[0]) < 22) {
      expect(warned.length).toBeGreaterThan(0);
      expect(warned.filter((name) => !/^(ai|@ai-sdk\/[\w-]+)@/.test(name))).toEqual([]);
    } else {
      expect(warned).toEqual([]);
    }
  });

  /** The README's try-it line that names `file`, as words. */
  const tryIt = (file: string): string[] => {
    const line = readme.tryIt.find((command) => command.includes(file));
    if (line === undefined) throw new Error(`The README's Installing section does not try ${file}: ${readme.tryIt.join(' | ')}`);
    const [command, ...args] = commandWords(line);
    expect(command).toBe('npx');
    return args;
  };

  it('runs the embedding example as the README says, offline', async (context) => {
    installed(context);
    const ran = await npx(app, tryIt('examples/embedding.ts'));
    expect(ran.stderr).toBe('');
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain('It is 4 °C in Oslo.');
    expect(ran.stdout).toMatch(/completed after 2 steps/);
  });

  it("runs the chat example's demo model as the README says, offline, and chats with approval through its endpoints", async (context) => {
    installed(context);
    // As the README says, on any free port and with its sessions in the app (its defaults: 3000 and a new temporary directory).
    const server = spawn('npx', ['--no', '--', ...tryIt('examples/chat-server/server.ts'), '--port', '0', '--sessions', 'sessions'], { cwd: app, env: appEnv(), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    server.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    server.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const closed = new Promise<NodeJS.Signals | number | null>((resolve) => server.once('close', (code, signal) => resolve(signal ?? code)));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const check = () => {
          const at = /loopchart chat server \(demo model\) at (http:\/\/\S+)/.exec(output)?.[1];
          if (at) resolve(at);
        };
        server.stdout.on('data', check);
        void closed.then(() => reject(new Error(`The chat server exited before it listened:\n${output}`)));
      });
      expect(await (await fetch(`${url}/`)).text()).toContain('<title>loopchart chat</title>');
      const message = { id: 'user-1', role: 'user', parts: [{ type: 'text', text: 'Water the plants' }] };
      const chat = await fetch(`${url}/api/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sessionId: 'readme', messages: [message] }) });
      const stream = new UIMessageStreamReader(chat);
      const { toolCallId } = await stream.until('tool-approval-request');
      const approval = await fetch(`${url}/api/sessions/readme/approve`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ toolCallId }) });
      expect(approval.status).toBe(200);
      const chunks = await stream.toEnd();
      expect(chunks.at(-1)).toMatchObject({ type: 'finish', messageMetadata: { outcome: 'completed' } });
      expect(stream.text()).toContain('Saved “Water the plants”.');
    } finally {
      // The terminal's Ctrl+C: SIGINT to npx, tsx and the server alike.
      process.kill(-server.pid!, 'SIGINT');
    }
    // npm passes the signal on and ends by it, as in a terminal; the server below it stops cleanly, and nothing is left running.
    expect({ end: await closed, errors: output.split('\n').filter((line) => /error|warn/i.test(line)) }).toEqual({ end: expect.toBeOneOf([0, 'SIGINT']), errors: [] });
    expect(await eventually(() => !groupAlive(server.pid!))).toBe(true);
  });

  it('runs the bundled CLI demo as the README says, offline', async (context) => {
    installed(context);
    const ran = await npx(app, tryIt('examples/demo.yaml'));
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain('no other "teh" is left');
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
