/**
 * Memory: 10,000 idle agents, each holding a 20-message history. The
 * measurement runs in a fresh `node --expose-gc` process (bench/memory-child.ts),
 * so it needs no flag on the parent and sees no other benchmark's garbage.
 */
import { childReport } from './child-report.js';
import type { MemoryReport } from './memory-child.js';
import { amount, check, ratio, times, type Row } from './support.js';

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
      measure: amount(report.agentBytesPerAgent / 1024, 'KB', 1),
      target: '<= 8 KB',
      max: 8,
    },
    { figure: `  the ${report.messagesPerAgent}-message history itself (plain arrays)`, value: kb(report.historyBytesPerAgent), measure: amount(report.historyBytesPerAgent / 1024, 'KB', 1) },
    {
      figure: '  the same agents after one run each (actor started, two more messages)',
      value: kb(report.agentBytesAfterRunPerAgent),
      ratio: `${(report.agentBytesAfterRunPerAgent / report.historyBytesPerAgent).toFixed(2)}x the history`,
      measure: amount(report.agentBytesAfterRunPerAgent / 1024, 'KB', 1),
    },
    {
      figure: `  createAgent with ${report.messagesPerAgent} messages, per agent`,
      value: `${report.createMicrosPerAgent.toFixed(0)} µs`,
      measure: amount(report.createMicrosPerAgent, 'µs', 0),
      target: '<= 100 µs',
      max: 100,
    },
    { figure: '  createAgent without a history', value: `${report.createEmptyMicros.toFixed(0)} µs`, measure: amount(report.createEmptyMicros, 'µs', 0), target: '<= 100 µs', max: 100 },
    {
      figure: `  createAgent with ${report.longHistoryMessages.toLocaleString('en-US')} messages`,
      value: `${(report.createLongMicros / 1000).toFixed(2)} ms`,
      measure: amount(report.createLongMicros / 1000, 'ms', 2),
      target: '<= 2 ms',
      max: 2,
    },
    {
      figure: `one session, ${(report.sessionBlocks * report.sessionRunsPerBlock).toLocaleString('en-US')} one-step runs: heap per message added, last ${report.sessionRunsPerBlock.toLocaleString('en-US')} runs`,
      value: kb(report.sessionLastBlockBytesPerMessage),
      ratio: `${ratio(sessionGrowth)} the first ${report.sessionRunsPerBlock.toLocaleString('en-US')} runs (${kb(report.sessionFirstBlockBytesPerMessage)})`,
      measure: times(sessionGrowth),
      target: '<= 1.5x (linear)',
      max: 1.5,
    },
  ];
}
