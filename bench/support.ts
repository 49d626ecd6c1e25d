import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { MockLanguageModelV4 } from 'ai/test';
import { pullStream } from '../src/models/index.js';

/** A zero-latency model whose every call streams `deltas` text deltas from a pull-based stream. */
export function textDeltaModel(deltas: number, delta = 'x'): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    doStream: async () => {
      let index = -2;
      return {
        stream: pullStream<LanguageModelV4StreamPart>(() => {
          index++;
          if (index === -1) return { type: 'stream-start', warnings: [] };
          if (index === 0) return { type: 'text-start', id: '0' };
          if (index <= deltas) return { type: 'text-delta', id: '0', delta };
          if (index === deltas + 1) return { type: 'text-end', id: '0' };
          if (index === deltas + 2) {
            return {
              type: 'finish',
              finishReason: { unified: 'stop', raw: 'stop' },
              usage: {
                inputTokens: { total: 10, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
                outputTokens: { total: deltas, text: undefined, reasoning: undefined },
              },
            };
          }
          return undefined;
        }),
      };
    },
  });
}

/** Best of `repeat` runs of `fn`, in milliseconds. */
export async function bestOf(repeat: number, fn: () => Promise<unknown>): Promise<number> {
  let best = Infinity;
  for (let i = 0; i < repeat; i++) {
    const started = performance.now();
    await fn();
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

export interface Row {
  figure: string;
  value: string;
  ratio?: string;
  target?: string;
  ok?: boolean;
}

export function printTable(rows: Row[]): void {
  const headers = ['figure', 'value', 'ratio', 'target', 'ok'] as const;
  const cells = rows.map((row) => [row.figure, row.value, row.ratio ?? '', row.target ?? '', row.ok === undefined ? '' : row.ok ? 'yes' : 'NO']);
  const widths = headers.map((header, i) => Math.max(header.length, ...cells.map((cell) => cell[i]!.length)));
  const line = (values: readonly string[]) => `| ${values.map((value, i) => value.padEnd(widths[i]!)).join(' | ')} |`;
  console.log(line(headers));
  console.log(`|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`);
  for (const cell of cells) console.log(line(cell));
}
