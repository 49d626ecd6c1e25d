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

// Runs in the worker (CommonJS, evaluated from this string): one file's lines against one pattern.
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
parentPort.on('message', ({ id, source, flags, text, limit }) => {
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
  parentPort.postMessage({ id, matches, more });
});
`;

/**
 * Runs regular expressions in a worker thread, where a pattern that
 * backtracks catastrophically (`^(a+)+$` over `aaaa…!`) can be stopped: the
 * JavaScript engine cannot interrupt a running regex, but a worker can be
 * terminated. One worker is kept (unreferenced, so it never holds the process
 * open) and replaced after a termination.
 */
export class RegexRunner {
  private worker: Worker | undefined;
  private nextId = 0;

  /**
   * The lines of `text` that `regex` matches, at most `limit` (`more` says whether there were more).
   * @throws RegexTimeoutError when `signal` aborts or the deadline (epoch ms) passes first; the worker is then terminated.
   */
  match(regex: RegExp, text: string, limit: number, options: { signal?: AbortSignal; deadline: number }): Promise<{ matches: LineMatch[]; more: boolean }> {
    const worker = this.ensureWorker();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const finish = () => {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        worker.off('message', onMessage);
        worker.off('error', onError);
      };
      const stop = (message: string) => {
        finish();
        this.terminate();
        reject(new RegexTimeoutError(message));
      };
      const onMessage = (reply: { id: number; matches: LineMatch[]; more: boolean }) => {
        if (reply.id !== id) return;
        finish();
        resolve({ matches: reply.matches, more: reply.more });
      };
      const onError = (error: Error) => {
        finish();
        this.worker = undefined;
        reject(error);
      };
      const onAbort = () => stop('the search was aborted');
      const timer = setTimeout(() => stop('the search ran out of time'), Math.max(0, options.deadline - Date.now()));
      if (options.signal?.aborted) return onAbort();
      options.signal?.addEventListener('abort', onAbort, { once: true });
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.postMessage({ id, source: regex.source, flags: regex.flags, text, limit });
    });
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(WORKER_SOURCE, { eval: true });
    worker.unref();
    this.worker = worker;
    return worker;
  }

  private terminate(): void {
    const worker = this.worker;
    this.worker = undefined;
    void worker?.terminate();
  }
}

/** The process's shared runner. */
export const regexRunner = new RegexRunner();
