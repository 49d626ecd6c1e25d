import { createRequire } from 'node:module';
import { BoundedWorker, type JobDeadline } from './bounded-worker.js';

/** A line that matched: its 1-based number and its text (carriage return stripped). */
export interface LineMatch {
  line: number;
  text: string;
}

/** How a glob is matched: picomatch's options the tools use (`dot: true`, and `basename` for name-only globs). */
export interface GlobMatchOptions {
  /** Match the last segment of each path only (picomatch's `basename`), as grep does for a glob without `/`. */
  basename?: boolean;
}

// Runs in the worker (CommonJS, evaluated from this string): one file's lines against one regular
// expression, or a list of paths against one glob (compiled there too: picomatch's parser is not
// linear for every pattern either). A few compiled globs are kept for the calls that follow.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const picomatch = require(workerData.picomatch);
const globs = new Map();
function globMatcher(glob, basename) {
  const key = (basename ? 'name:' : 'path:') + glob;
  let matcher = globs.get(key);
  if (matcher === undefined) {
    matcher = picomatch(glob, { dot: true, basename });
    if (globs.size >= 16) globs.delete(globs.keys().next().value);
    globs.set(key, matcher);
  }
  return matcher;
}
function matchPaths({ glob, basename, paths }) {
  const isMatch = globMatcher(glob, basename);
  return { paths: paths.filter((path) => isMatch(path)) };
}
function matchLines({ source, flags, text, limit }) {
  const regex = new RegExp(source, flags);
  const lines = text === '' ? [] : text.split('\\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  const matches = [];
  let more = false;
  for (let index = 0; index < lines.length; index++) {
    let line = lines[index];
    if (line.endsWith('\\r')) line = line.slice(0, -1);
    if (!regex.test(line)) continue;
    if (matches.length === limit) { more = true; break; }
    matches.push({ line: index + 1, text: line });
  }
  return { matches, more };
}
parentPort.on('message', (message) => {
  let reply;
  try {
    reply = message.kind === 'paths' ? matchPaths(message) : matchLines(message);
  } catch (error) {
    reply = { error: error instanceof Error ? error.message : String(error) };
  }
  parentPort.postMessage({ id: message.id, ...reply });
});
parentPort.postMessage({ ready: true });
`;

/**
 * Runs regular expressions, and globs (which picomatch compiles to them), in
 * a worker thread (`BoundedWorker`), where a pattern that backtracks
 * catastrophically (`^(a+)+$` over `aaaa…!`, `*a*a*a*a*b` over a long file
 * name) can be stopped: the JavaScript engine cannot interrupt a running
 * regex, but a worker can be terminated.
 */
export class RegexRunner {
  private readonly worker = new BoundedWorker(WORKER_SOURCE, { picomatch: createRequire(import.meta.url).resolve('picomatch') });

  /** Resolves once the matching worker is up (after a runaway pattern got the last one stopped, a new one starts). */
  started(): Promise<void> {
    return this.worker.started();
  }

  /**
   * The lines of `text` that `regex` matches, at most `limit` (`more` says whether there were more).
   * @throws WorkerDeadlineError when `signal` aborts or the deadline (epoch ms) passes first; the worker is then terminated.
   */
  async match(regex: RegExp, text: string, limit: number, options: JobDeadline): Promise<{ matches: LineMatch[]; more: boolean }> {
    const reply = await this.worker.run({ kind: 'lines', source: regex.source, flags: regex.flags, text, limit }, options);
    return { matches: reply.matches as LineMatch[], more: reply.more as boolean };
  }

  /**
   * The `paths` (relative, `/`-separated) that `glob` matches, in their order, as picomatch matches
   * them with `dot: true`.
   * @throws WorkerDeadlineError when `signal` aborts or the deadline (epoch ms) passes first; the worker is then terminated.
   * @throws Error when picomatch refuses the glob.
   */
  async matchPaths(glob: string, paths: readonly string[], options: GlobMatchOptions & JobDeadline): Promise<string[]> {
    const reply = await this.worker.run({ kind: 'paths', glob, basename: options.basename === true, paths }, { signal: options.signal, deadline: options.deadline });
    return reply.paths as string[];
  }
}

/** The process's shared runner. */
export const regexRunner = new RegexRunner();
