import { createInterface } from 'node:readline/promises';
import type { AskUser } from './approval.js';
import { terminalSafe } from './terminal-text.js';

export interface TerminalAskerOptions {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  /** Ctrl+C while the question waits: readline catches it, so it is passed on here (to abort the run). */
  onInterrupt: () => void;
}

/**
 * Asks on a terminal: `Allow write {"path":"a.txt"}? [y/N] `. Only `y` or
 * `yes` approves; anything else, including just Enter, denies. So does the end
 * of the input (Ctrl+D, a terminal that went away): the question is not left
 * waiting for ever, and once the input has ended every later question denies at once.
 */
export function terminalAsker({ input, output, onInterrupt }: TerminalAskerOptions): AskUser {
  return async (request, signal) => {
    if ((input as Partial<NodeJS.ReadStream>).readableEnded === true) return false;
    const lines = createInterface({ input, output });
    lines.on('SIGINT', onInterrupt);
    try {
      const doomLoop = request.reason === 'doom-loop' ? ' (it repeats the same call: doom loop)' : '';
      // readline closes at the end of its input but leaves an open question pending (Node 20): the close answers it, as no.
      const closed = new Promise<string>((resolve) => lines.once('close', () => resolve('')));
      const answer = await Promise.race([lines.question(`Allow ${terminalSafe(`${request.toolName} ${JSON.stringify(request.input)}`)}${doomLoop}? [y/N] `, { signal }), closed]);
      return /^\s*y(es)?\s*$/i.test(answer);
    } finally {
      lines.close();
    }
  };
}
