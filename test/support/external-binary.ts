/**
 * Tests that need a program from outside npm (Debian's Chromium, PostgreSQL,
 * Redis) run when it is installed and skip with a visible notice when it is
 * not, so `npm install && npm test` passes on a fresh machine. CI sets
 * `LOOPCHART_REQUIRE_SERVICES=1` (see .ci/run), which turns such a skip into
 * a failure that says what to install.
 *
 * @example
 * const chromium = externalBinary({ name: 'chromium', debianPackage: 'chromium', paths: ['/usr/bin/chromium'] });
 * describe.skipIf(chromium === undefined)('the report in a browser', () => { … });
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';

export interface ExternalBinaryRequirement {
  /** The program, as looked up on PATH (`chromium`, `postgres`, `redis-server`). */
  name: string;
  /** The Debian package that installs it, for the notice. */
  debianPackage: string;
  /** Where to look first, before PATH. */
  paths?: readonly string[];
}

/** Set by .ci/run: a missing external program fails the suite instead of skipping it. */
export const servicesRequired = process.env.LOOPCHART_REQUIRE_SERVICES === '1';

/**
 * The program's path, or undefined after printing a notice that the tests
 * needing it are skipped.
 * @throws Error when it is missing and `LOOPCHART_REQUIRE_SERVICES=1`.
 */
export function externalBinary(requirement: ExternalBinaryRequirement): string | undefined {
  const found = findBinary(requirement);
  if (found !== undefined) return found;
  const missing = `${requirement.name} is not installed (Debian: apt-get install -y ${requirement.debianPackage})`;
  if (servicesRequired) throw new Error(`${missing}, and LOOPCHART_REQUIRE_SERVICES=1 makes a missing program a failure.`);
  process.stderr.write(`\n[loopchart tests] SKIPPED, ${missing}: the tests that need it.\n`);
  return undefined;
}

/** The first existing candidate path, then the first match on PATH. */
export function findBinary({ name, paths = [] }: Pick<ExternalBinaryRequirement, 'name' | 'paths'>): string | undefined {
  for (const candidate of paths) if (existsSync(candidate)) return candidate;
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    const candidate = path.join(dir, name);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** Debian's PostgreSQL keeps its server programs out of PATH, in /usr/lib/postgresql/<version>/bin: newest version first. */
export function postgresBinDirs(): string[] {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .filter((version) => /^\d+$/.test(version))
    .sort((a, b) => Number(b) - Number(a))
    .map((version) => path.join(root, version, 'bin'));
}

/** Debian's Chromium. */
export const chromiumRequirement: ExternalBinaryRequirement = { name: 'chromium', debianPackage: 'chromium', paths: ['/usr/bin/chromium'] };
