/**
 * Prints where a .cpuprofile (node --cpu-prof) spent its time: self time by function, and total
 * (inclusive) time for the functions whose name matches a filter.
 * Usage: node bench/profile/cpuprofile-top.ts <file.cpuprofile> [count] [filter]
 */
import { readFileSync } from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

const [file, count = '25', filter] = process.argv.slice(2);
const profile = JSON.parse(readFileSync(file!, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map(node => [node.id, node]));
const parent = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
const self = new Map<number, number>();
profile.samples.forEach((id, index) =>
  self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0) / 1000),
);
const name = (node: Node) =>
  `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url.split('/').slice(-2).join('/')}:${node.callFrame.lineNumber}`;
const totals = new Map<string, number>();
const inclusive = new Map<string, number>();
for (const [id, ms] of self) {
  const key = name(byId.get(id)!);
  totals.set(key, (totals.get(key) ?? 0) + ms);
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const frame = name(byId.get(at)!);
    if (seen.has(frame)) continue;
    seen.add(frame);
    inclusive.set(frame, (inclusive.get(frame) ?? 0) + ms);
  }
}
const all = [...self.values()].reduce((a, b) => a + b, 0);
console.log(`total sampled ${all.toFixed(0)} ms; top self time:`);
for (const [key, ms] of [...totals].sort((a, b) => b[1] - a[1]).slice(0, Number(count))) {
  console.log(`  ${ms.toFixed(1).padStart(8)} ms  ${key}`);
}
if (filter) {
  console.log(`inclusive time of functions matching /${filter}/:`);
  for (const [key, ms] of [...inclusive]
    .filter(([key]) => new RegExp(filter).test(key))
    .sort((a, b) => b[1] - a[1])
    .slice(0, 30)) {
    console.log(`  ${ms.toFixed(1).padStart(8)} ms  ${key}`);
  }
}
