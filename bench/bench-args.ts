/**
 * The arguments of `npm run bench`: `--runs N` (runs of each group, each in a fresh process;
 * default 5), `--save FILE` (every group's run appended to FILE as it ends, so a long run's
 * figures survive its interruption) and words choosing the groups. An unknown flag, a count that
 * is not a positive whole number or a flag without its value is an error, not ignored.
 *
 * @example
 * ```ts
 * parseBenchArgs(['--runs', '1', 'loop']); // { runs: 1, words: ['loop'] }
 * parseBenchArgs(['--save', 'runs.jsonl']); // { runs: 5, words: [], save: 'runs.jsonl' }
 * ```
 */
export interface BenchArgs {
  runs: number;
  words: string[];
  /** A file each group's run is appended to as one JSON line (`{ group, run, rows }`) as soon as it ends. */
  save?: string;
}

export const DEFAULT_RUNS = 5;

export function parseBenchArgs(argv: readonly string[]): BenchArgs {
  let runs = DEFAULT_RUNS;
  let save: string | undefined;
  const words: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const inline = /^--runs=(.*)$/.exec(arg);
    if (arg === '--runs' || inline) {
      const text = inline ? inline[1]! : argv[++i];
      if (text === undefined || !/^[1-9]\d*$/.test(text)) throw new Error(`--runs takes a positive whole number of runs, not ${JSON.stringify(text ?? '')}`);
      runs = Number(text);
    } else if (arg === '--save') {
      const file = argv[++i];
      if (file === undefined || file.startsWith('-')) throw new Error('--save takes the file to append each run to');
      save = file;
    } else if (arg.startsWith('-')) {
      throw new Error(`unknown option ${arg}; npm run bench -- [--runs N] [words choosing groups]`);
    } else {
      words.push(arg);
    }
  }
  return { runs, words, ...(save !== undefined ? { save } : {}) };
}
