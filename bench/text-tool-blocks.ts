/**
 * Text tools: `ToolTagParser` reading one tool-call block whose arguments are 400 KB (a file written
 * through a tool), with 50,000 spaces before its closing tag, fed in 4-character chunks as a model
 * streams it and fed whole; the time per character of each, and the chunked read against the whole
 * one. A parser that searched the whole block again at every chunk cost time in the square of the
 * block's length (about 80 s for this block, until 2026-11-28). The target keeps it linear: the chunked
 * read at most 30x the whole one.
 */
import { ToolTagParser, type ToolTagEvent } from '../src/text-tools/tool-tag-parser.js';
import { amount, check, measureRounds, median, pairedRatio, ratio, times, type Row } from './support.js';

const CONTENT = 'x'.repeat(400_000);
const BLOCK = `<use_tool><tool_name>write</tool_name><arguments>{"content": "${CONTENT}"}</arguments>${' '.repeat(50_000)}</use_tool> Done.`;
const CHUNK = 4;

function read(chunk: number): void {
  const parser = new ToolTagParser();
  const events: ToolTagEvent[] = [];
  for (let fed = 0; fed < BLOCK.length; fed += chunk) events.push(...parser.feed(BLOCK.slice(fed, fed + chunk)));
  events.push(...parser.flush());
  const call = events.find((event) => event.type === 'tool-call');
  check(call?.type === 'tool-call' && call.toolCall.input === `{"content": "${CONTENT}"}`, 'the parser must read the whole block as one call');
}

export async function textToolBlocksBench(): Promise<Row[]> {
  const rounds = await measureRounds(
    6,
    { chunked: async () => read(CHUNK), whole: async () => read(BLOCK.length) },
    { warmup: 1, runsPerBlock: 3 },
  );
  const perChar = (runs: number[]) => (median(runs) * 1_000_000) / BLOCK.length;
  const chunkedVsWhole = pairedRatio(rounds.chunked, rounds.whole);
  return [
    { figure: 'text tools: a 450 KB tool-call block read whole, per character', value: `${perChar(rounds.whole).toFixed(1)} ns`, measure: amount(perChar(rounds.whole), 'ns', 1) },
    {
      figure: `  the same block in ${CHUNK}-character chunks, per character`,
      value: `${perChar(rounds.chunked).toFixed(1)} ns (${median(rounds.chunked).toFixed(0)} ms the block)`,
      ratio: `${ratio(chunkedVsWhole)} the whole read`,
      measure: times(chunkedVsWhole),
      // Per-chunk work (a slice, a call, its events) makes it several times the whole read; a parser that searched the
      // block again at every chunk made it about 2,000x.
      target: '<= 30x',
      max: 30,
    },
  ];
}
