import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** A line that matched: its 1-based number and its text (carriage return stripped). */
export interface LineMatch {
  line: number;
  text: string;
}

/** Why a search was stopped: the caller's abort, or the time limit. */
export class RegexTimeoutError extends Error {
  override readonly name = 'RegexTimeoutError';
}

/** How a glob is matched: picomatch's options the tools use (`dot: true`, and `basename` for name-only globs). */
export interface GlobMatchOptions {
  /** Match the last segment of each path only (picomatch's `basename`), as grep does for a glob without `/`. */
  basename?: boolean;
}

interface Deadline {
  signal?: AbortSignal | undefined;
  /** Epoch ms. */
  deadline: number;
}

// Runs in the worker (CommonJS, evaluated from this string): one file's lines against one regular
// expression, or a list of paths against one glob (compiled there too: picomatch's parser is not
// linear for every pattern either). A few compiled globs are kept for the calls that follow.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const globs = new Map();
function globMatcher(glob, basename) {
  const key = (basename ? 'name:' : 'path:') + glob;
  let matcher = globs.get(key);
  if (matcher === undefined) {
    const picomatch = require(workerData.picomatch);
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
`;

/**
 * Runs regular expressions, and globs (which picomatch compiles to them), in
 * a worker thread, where a pattern that backtracks catastrophically
 * (`^(a+)+$` over `aaaa…!`, `*a*a*a*a*b` over a long file name) can be
 * stopped: the JavaScript engine cannot interrupt a running regex, but a
 * worker can be terminated. One worker is kept (unreferenced, so it never
 * holds the process open) and replaced after a termination.
 */
export class RegexRunner {
  private worker: Worker | undefined;
  private nextId = 0;

  /**
   * The lines of `text` that `regex` matches, at most `limit` (`more` says whether there were more).
   * @throws RegexTimeoutError when `signal` aborts or the deadline (epoch ms) passes first; the worker is then terminated.
   */
  async match(regex: RegExp, text: string, limit: number, options: Deadline): Promise<{ matches: LineMatch[]; more: boolean }> {
    const reply = await this.run({ kind: 'lines', source: regex.source, flags: regex.flags, text, limit }, options);
    return { matches: reply.matches as LineMatch[], more: reply.more as boolean };
  }

  /**
   * The `paths` (relative, `/`-separated) that `glob` matches, in their order, as picomatch matches
   * them with `dot: true`.
   * @throws RegexTimeoutError when `signal` aborts or the deadline (epoch ms) passes first; the worker is then terminated.
   * @throws Error when picomatch refuses the glob.
   */
  async matchPaths(glob: string, paths: readonly string[], options: GlobMatchOptions & Deadline): Promise<string[]> {
    const reply = await this.run({ kind: 'paths', glob, basename: options.basename === true, paths }, options);
    return reply.paths as string[];
  }

  private run(message: Record<string, unknown>, options: Deadline): Promise<Record<string, unknown>> {
    if (options.signal?.aborted) return Promise.reject(new RegexTimeoutError('the search was aborted'));
    const worker = this.ensureWorker();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const finish = () => {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
      };
      const stop = (reason: string) => {
        finish();
        this.terminate(worker);
        reject(new RegexTimeoutError(reason));
      };
      const onMessage = (reply: { id: number; error?: string }) => {
        if (reply.id !== id) return;
        finish();
        if (reply.error !== undefined) reject(new Error(reply.error));
        else resolve(reply);
      };
      const onError = (error: Error) => {
        finish();
        if (this.worker === worker) this.worker = undefined;
        reject(error);
      };
      // Another call's runaway pattern got the shared worker terminated: this call starts again on a new one.
      const onExit = () => {
        finish();
        if (this.worker === worker) this.worker = undefined;
        this.run(message, options).then(resolve, reject);
      };
      const onAbort = () => stop('the search was aborted');
      const timer = setTimeout(() => stop('the search ran out of time'), Math.max(0, options.deadline - Date.now()));
      options.signal?.addEventListener('abort', onAbort, { once: true });
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
      worker.postMessage({ id, ...message });
    });
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { picomatch: createRequire(import.meta.url).resolve('picomatch') } });
    worker.unref();
    this.worker = worker;
    return worker;
  }

  private terminate(worker: Worker): void {
    if (this.worker === worker) this.worker = undefined;
    void worker.terminate();
  }
}

/** The process's shared runner. */
export const regexRunner = new RegexRunner();
