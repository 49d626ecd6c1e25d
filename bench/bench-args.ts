/**
 * The arguments of `npm run bench`: `--runs N` (runs of each group, each in a fresh process;
 * default 5) and words choosing the groups. An unknown flag or a count that is not a positive
 * whole number is an error, not ignored.
 *
 * @example
 * ```ts
 * parseBenchArgs(['--runs', '1', 'loop']); // { runs: 1, words: ['loop'] }
 * ```
 */
export interface BenchArgs {
  runs: number;
  words: string[];
}

export const DEFAULT_RUNS = 5;

export function parseBenchArgs(argv: readonly string[]): BenchArgs {
  let runs = DEFAULT_RUNS;
  const words: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const inline = /^--runs=(.*)$/.exec(arg);
    if (arg === '--runs' || inline) {
      const text = inline ? inline[1]! : argv[++i];
      if (text === undefined || !/^[1-9]\d*$/.test(text)) throw new Error(`--runs takes a positive whole number of runs, not ${JSON.stringify(text ?? '')}`);
      runs = Number(text);
    } else if (arg.startsWith('-')) {
      throw new Error(`unknown option ${arg}; npm run bench -- [--runs N] [words choosing groups]`);
    } else {
      words.push(arg);
    }
  }
  return { runs, words };
}
