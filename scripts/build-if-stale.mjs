// `npm start` runs this first: it builds dist/ with tsc only when a source is newer than the build,
// so starting the demo does not pay for a full compile every time.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const built = path.join(root, 'dist', 'cli.js');

/** The newest modification time below `dir` (or of the file itself). */
function newest(file) {
  const stats = statSync(file);
  if (!stats.isDirectory()) return stats.mtimeMs;
  return readdirSync(file).reduce((latest, name) => Math.max(latest, newest(path.join(file, name))), 0);
}

const sources = ['src', 'tsconfig.json', 'tsconfig.build.json', 'package.json'].map((name) => path.join(root, name));
const stale = !existsSync(built) || Math.max(...sources.map(newest)) > statSync(built).mtimeMs;
if (stale) {
  const tsc = spawnSync(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
  process.exit(tsc.status ?? 1);
}
