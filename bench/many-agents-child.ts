/**
 * The 1,000-agent loopchart batch of bench/many-agents.ts in a fresh process,
 * started with whatever V8 flags are being measured: two warm-up batches, then
 * five measured ones. Prints one JSON line: each measured batch's CPU ms.
 *
 *   node --expose-gc --max-semi-space-size=64 --import tsx bench/many-agents-child.ts
 */
import { loopchartBatch, measure } from './many-agents.js';

await loopchartBatch(1_000);
await loopchartBatch(1_000);
const cpu: number[] = [];
for (let round = 0; round < 5; round++) cpu.push((await measure(() => loopchartBatch(1_000))).cpu);
process.stdout.write(`${JSON.stringify(cpu)}\n`);
