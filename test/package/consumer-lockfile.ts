/**
 * The package.json and package-lock.json of an app that depends on the packed
 * loopchart tarball, cut from the project's own lockfile, so that
 * `npm ci --offline` installs the app from the npm cache alone.
 *
 * `npm install <tarball> ai@<version> --offline` is not enough: it needs each
 * package's registry metadata (packument), which `npm ci` never fetches, so a
 * cache filled by `npm ci` lacks most of them. A lockfile whose entries carry
 * `resolved` and `integrity` needs only the tarballs, which the cache has.
 */

/** One `packages` entry of a version-3 package-lock.json (the fields used here). */
export interface LockEntry {
  name?: string;
  version?: string;
  resolved?: string;
  integrity?: string;
  link?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  [field: string]: unknown;
}

export interface Lockfile {
  name: string;
  version: string;
  lockfileVersion: 3;
  requires: true;
  packages: Record<string, LockEntry>;
}

export interface PackageManifest {
  name: string;
  version: string;
  license?: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  bin?: Record<string, string>;
  engines?: Record<string, string>;
}

export interface ConsumerAppOptions {
  /** The project's package-lock.json. */
  projectLock: { packages: Record<string, LockEntry> };
  /** loopchart's package.json, as packed. */
  manifest: PackageManifest;
  /** The tarball's file name, relative to the app directory, and its sha512 integrity. */
  tarball: { file: string; integrity: string };
  /** The app's own dependencies besides loopchart, by name; each gets the version the project's lockfile has. */
  appDependencies: readonly string[];
  /** The app's devDependencies (`npm install -D`), likewise. */
  appDevDependencies?: readonly string[];
  /** The app's name (`npm init -y` names it after its directory). Default `loopchart-consumer-app`. */
  name?: string;
  /** The registry the tarball URLs point at (the npm cache is keyed by them), ending in `/`. */
  registry: string;
}

export interface ConsumerApp {
  packageJson: { name: string; version: string; private: true; type: 'module'; dependencies: Record<string, string>; devDependencies?: Record<string, string> };
  lockfile: Lockfile;
}

const APP = 'loopchart-consumer-app';

/**
 * The app's manifest and lockfile: loopchart from the tarball, the app's own
 * dependencies at the project's locked versions, and everything they and
 * loopchart need (dependencies, required peers, optional dependencies the
 * project installed) at the places the project's lockfile puts them.
 * Optional peers are left out: an app installs those it uses.
 *
 * @throws Error when the project's lockfile lacks a package that is needed.
 */
export function consumerApp({ projectLock, manifest, tarball, appDependencies, appDevDependencies = [], name = APP, registry }: ConsumerAppOptions): ConsumerApp {
  const locked = projectLock.packages;
  const picked = new Map<string, LockEntry>();
  const queue: string[] = [];
  const need = (from: string, name: string, optional = false) => {
    const at = locate(locked, from, name);
    if (at === undefined) {
      if (optional) return;
      throw new Error(`the project's package-lock.json has no ${name} for ${from === '' ? 'the app' : from}`);
    }
    if (picked.has(at)) return;
    picked.set(at, locked[at]!);
    queue.push(at);
  };
  const dependencies: Record<string, string> = { loopchart: `file:${tarball.file}` };
  const devDependencies: Record<string, string> = {};
  for (const [names, into] of [[appDependencies, dependencies], [appDevDependencies, devDependencies]] as const) {
    for (const dependency of names) {
      need('', dependency);
      into[dependency] = locked[`node_modules/${dependency}`]!.version!;
    }
  }
  const devDependenciesIfAny = Object.keys(devDependencies).length > 0 ? { devDependencies } : {};
  for (const name of Object.keys(manifest.dependencies ?? {})) need('', name);
  for (const name of requiredPeers(manifest)) need('', name);
  for (let at = queue.shift(); at !== undefined; at = queue.shift()) {
    const entry = locked[at]!;
    for (const name of Object.keys(entry.dependencies ?? {})) need(at, name);
    for (const name of Object.keys(entry.optionalDependencies ?? {})) need(at, name, true);
    for (const name of requiredPeers(entry)) need(at, name);
  }
  const packages: Record<string, LockEntry> = {
    '': { name, version: '1.0.0', dependencies, ...devDependenciesIfAny },
    'node_modules/loopchart': {
      version: manifest.version,
      resolved: `file:${tarball.file}`,
      integrity: tarball.integrity,
      ...pick(manifest, ['license', 'dependencies', 'peerDependencies', 'peerDependenciesMeta', 'bin', 'engines']),
    },
  };
  for (const [at, entry] of [...picked].sort(([a], [b]) => a.localeCompare(b))) {
    packages[at] = { ...entry, resolved: entry.resolved ?? tarballUrl(registry, entry.name ?? packageNameAt(at), entry.version!) };
  }
  return {
    packageJson: { name, version: '1.0.0', private: true, type: 'module', dependencies, ...devDependenciesIfAny },
    lockfile: { name, version: '1.0.0', lockfileVersion: 3, requires: true, packages },
  };
}

/** Where Node finds `name` from the package at lockfile path `from`: its own node_modules, then each enclosing one. */
export function locate(packages: Record<string, LockEntry>, from: string, name: string): string | undefined {
  for (let dir = from; ; ) {
    const candidate = `${dir === '' ? '' : `${dir}/`}node_modules/${name}`;
    if (packages[candidate] !== undefined) return candidate;
    if (dir === '') return undefined;
    const parent = dir.lastIndexOf('/node_modules/');
    dir = parent < 0 ? '' : dir.slice(0, parent);
  }
}

/** The registry's tarball URL: `<registry><name>/-/<name without scope>-<version>.tgz`. */
export function tarballUrl(registry: string, name: string, version: string): string {
  return `${registry}${name}/-/${name.split('/').pop()!}-${version}.tgz`;
}

function packageNameAt(lockPath: string): string {
  return lockPath.slice(lockPath.lastIndexOf('node_modules/') + 'node_modules/'.length);
}

function requiredPeers(entry: Pick<LockEntry, 'peerDependencies' | 'peerDependenciesMeta'>): string[] {
  return Object.keys(entry.peerDependencies ?? {}).filter((name) => entry.peerDependenciesMeta?.[name]?.optional !== true);
}

function pick<T extends object, K extends keyof T>(source: T, keys: readonly K[]): Partial<Pick<T, K>> {
  return Object.fromEntries(keys.filter((key) => source[key] !== undefined).map((key) => [key, source[key]])) as Partial<Pick<T, K>>;
}
