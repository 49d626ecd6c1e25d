/** `npm run bench`: every benchmark, one table, ratios measured in this process. */
import os from 'node:os';
import { streamBench } from './stream.js';
import { printTable } from './support.js';

console.log(`loopchart benchmarks — ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${os.cpus()[0]?.model ?? 'unknown CPU'} x${os.cpus().length}, ${os.platform()}`);
const rows = [...(await streamBench())];
printTable(rows);
const missed = rows.filter((row) => row.ok === false);
if (missed.length > 0) {
  console.log(`\n${missed.length} target(s) missed: ${missed.map((row) => row.figure).join('; ')}`);
  process.exitCode = 1;
}
