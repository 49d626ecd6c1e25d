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
 * `yes` approves; anything else, including just Enter, denies.
 */
export function terminalAsker({ input, output, onInterrupt }: TerminalAskerOptions): AskUser {
  return async (request, signal) => {
    const lines = createInterface({ input, output });
    lines.on('SIGINT', onInterrupt);
    try {
      const doomLoop = request.reason === 'doom-loop' ? ' (it repeats the same call: doom loop)' : '';
      const answer = await lines.question(`Allow ${terminalSafe(`${request.toolName} ${JSON.stringify(request.input)}`)}${doomLoop}? [y/N] `, { signal });
      return /^\s*y(es)?\s*$/i.test(answer);
    } finally {
      lines.close();
    }
  };
}
