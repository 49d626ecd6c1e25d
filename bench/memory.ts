/**
 * Memory: 10,000 idle agents, each holding a 20-message history. The
 * measurement runs in a fresh `node --expose-gc` process (bench/memory-child.ts),
 * so it needs no flag on the parent and sees no other benchmark's garbage.
 */
import { childReport } from './child-report.js';
import type { MemoryReport } from './memory-child.js';
import { check, ratio, type Row } from './support.js';

export async function memoryBench(): Promise<Row[]> {
  const report = await childReport<MemoryReport>('memory-child.ts');
  check(report.historyBytesPerAgent > 0 && report.agentBytesPerAgent > 0, `memory figures make no sense: ${JSON.stringify(report)}`);
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
  const sessionGrowth = report.sessionLastBlockBytesPerMessage / report.sessionFirstBlockBytesPerMessage;
  return [
    {
      figure: `${report.agents.toLocaleString('en-US')} idle agents: heap per agent beyond its history`,
      value: kb(report.agentBytesPerAgent),
      ratio: `${(report.agentBytesPerAgent / report.historyBytesPerAgent).toFixed(2)}x the history`,
      target: '<= 8 KB',
      ok: report.agentBytesPerAgent <= 8 * 1024,
    },
    { figure: `  the ${report.messagesPerAgent}-message history itself (plain arrays)`, value: kb(report.historyBytesPerAgent) },
    {
      figure: '  the same agents after one run each (actor started, two more messages)',
      value: kb(report.agentBytesAfterRunPerAgent),
      ratio: `${(report.agentBytesAfterRunPerAgent / report.historyBytesPerAgent).toFixed(2)}x the history`,
    },
    {
      figure: `  createAgent with ${report.messagesPerAgent} messages, per agent`,
      value: `${report.createMicrosPerAgent.toFixed(0)} µs`,
      target: '<= 100 µs',
      ok: report.createMicrosPerAgent <= 100,
    },
    { figure: '  createAgent without a history', value: `${report.createEmptyMicros.toFixed(0)} µs`, target: '<= 100 µs', ok: report.createEmptyMicros <= 100 },
    {
      figure: `  createAgent with ${report.longHistoryMessages.toLocaleString('en-US')} messages`,
      value: `${(report.createLongMicros / 1000).toFixed(2)} ms`,
      target: '<= 2 ms',
      ok: report.createLongMicros <= 2000,
    },
    {
      figure: `one session, ${(report.sessionBlocks * report.sessionRunsPerBlock).toLocaleString('en-US')} one-step runs: heap per message added, last ${report.sessionRunsPerBlock.toLocaleString('en-US')} runs`,
      value: kb(report.sessionLastBlockBytesPerMessage),
      ratio: `${ratio(sessionGrowth)} the first ${report.sessionRunsPerBlock.toLocaleString('en-US')} runs (${kb(report.sessionFirstBlockBytesPerMessage)})`,
      target: '<= 1.5x (linear)',
      ok: sessionGrowth <= 1.5,
    },
  ];
}
