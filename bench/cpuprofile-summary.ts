/**
 * Summarises a V8 CPU profile (`node --cpu-prof`): self time by package or
 * source file, and by function.
 *
 *   npx tsx bench/cpuprofile-summary.ts <file.cpuprofile | directory> [functions=30]
 *
 * Given a directory, it reads the largest profile in it (`tsx` runs a second,
 * nearly idle thread that writes a profile of its own).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

function largestProfile(target: string): string {
  if (!statSync(target).isDirectory()) return target;
  const files = readdirSync(target)
    .filter((file) => file.endsWith('.cpuprofile'))
    .map((file) => path.join(target, file))
    .sort((a, b) => statSync(b).size - statSync(a).size);
  if (files[0] === undefined) throw new Error(`no .cpuprofile in ${target}`);
  return files[0];
}

function where(url: string): { file: string; owner: string } {
  const file = url.replace(/^file:\/\//, '').replace(/.*\/node_modules\//, 'node_modules/').replace(`${process.cwd()}/`, '');
  if (file.startsWith('node_modules/')) {
    const parts = file.split('/');
    return { file, owner: parts.slice(0, parts[1]!.startsWith('@') ? 3 : 2).join('/') };
  }
  return { file, owner: file };
}

const [target, top = '30'] = process.argv.slice(2);
if (target === undefined) throw new Error('usage: tsx bench/cpuprofile-summary.ts <file.cpuprofile | directory> [functions]');
const file = largestProfile(target);
const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const byOwner = new Map<string, number>();
const byFunction = new Map<string, number>();
let total = 0;
profile.samples.forEach((id, index) => {
  const delta = profile.timeDeltas[index] ?? 0;
  const node = nodes.get(id);
  if (node === undefined) return;
  total += delta;
  const { functionName, url, lineNumber } = node.callFrame;
  const { file: source, owner } = where(url);
  const label = owner || functionName;
  byOwner.set(label, (byOwner.get(label) ?? 0) + delta);
  const fn = `${functionName || '(anonymous)'}  ${source ? `${source}:${lineNumber + 1}` : ''}`;
  byFunction.set(fn, (byFunction.get(fn) ?? 0) + delta);
});

const print = (title: string, entries: Map<string, number>, count: number) => {
  console.log(title);
  for (const [key, time] of [...entries].sort((a, b) => b[1] - a[1]).slice(0, count)) {
    console.log(`${((100 * time) / total).toFixed(1).padStart(6)}%  ${key}`);
  }
};
console.log(`${file}: ${(total / 1e6).toFixed(1)} s sampled`);
print('\nself time by package / file', byOwner, 20);
print('\nself time by function', byFunction, Number(top));
