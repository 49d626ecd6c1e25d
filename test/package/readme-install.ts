/**
 * The README's Installing section as commands a test can follow: its first
 * `sh` block sets up an app, its second tries the examples the package ships.
 */

export interface InstallingSection {
  /** The set-up lines: `npm init …`, `npm install …`. */
  setUp: string[];
  /** The lines that try the package in the app: `npx tsx node_modules/loopchart/…`. */
  tryIt: string[];
}

/** A command line's words, without its `# comment`. */
export function commandWords(line: string): string[] {
  return line.replace(/\s#.*$/, '').trim().split(/\s+/).filter((word) => word !== '');
}

/**
 * The commands of the `## Installing` section, comments left on (`commandWords` drops them).
 *
 * @throws Error when the section or one of its two `sh` blocks is missing.
 */
export function installingSection(readme: string): InstallingSection {
  const start = /^## Installing$/m.exec(readme)?.index;
  if (start === undefined) throw new Error('README.md has no "## Installing" section');
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!.split('\n').filter((line) => line.trim() !== ''));
  if (blocks.length < 2) throw new Error(`README.md's Installing section has ${blocks.length} sh blocks; expected the set-up and the one that tries the examples`);
  return { setUp: blocks[0]!, tryIt: blocks[1]! };
}

/** What one `npm install` line installs, or undefined for any other command: `npm install -D tsx` → `{ packages: ['tsx'], dev: true }`. */
export function npmInstall(line: string): { packages: string[]; dev: boolean } | undefined {
  const [npm, command, ...rest] = commandWords(line);
  if (npm !== 'npm' || (command !== 'install' && command !== 'i')) return undefined;
  const flags = rest.filter((word) => word.startsWith('-'));
  const unknown = flags.filter((flag) => !['-D', '--save-dev'].includes(flag));
  if (unknown.length > 0) throw new Error(`npm install line with flags the test does not know: ${unknown.join(' ')}`);
  return { packages: rest.filter((word) => !word.startsWith('-')), dev: flags.length > 0 };
}
