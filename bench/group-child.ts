/**
 * Runs one benchmark group (by its exact name in bench/groups.ts) in this fresh process and prints
 * its rows as the JSON of the last line: `{ "rows": [...] }`, or `{ "error": "..." }` when the
 * group crashed or a run measured the wrong thing (a `WrongResultError`).
 */
import { benchGroups } from './groups.js';

const name = process.argv[2];
const group = benchGroups.find((candidate) => candidate.name === name);
if (group === undefined) {
  console.error(`no benchmark group is named ${JSON.stringify(name)}; the groups: ${benchGroups.map((known) => known.name).join(', ')}`);
  process.exit(2);
}
try {
  const bench = await group.load();
  const rows = await bench();
  process.stdout.write(`\n${JSON.stringify({ rows })}\n`);
} catch (error) {
  process.stdout.write(`\n${JSON.stringify({ error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) })}\n`);
}
// Whatever a group left running must not hold the bench: say so, and end.
setTimeout(() => {
  console.error(`benchmark group "${name}" left handles open after its rows; exiting anyway`);
  process.exit();
}, 2_000).unref();
