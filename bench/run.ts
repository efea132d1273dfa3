/**
 * The side-by-side benchmark: the sandboxes against the host doing the same work directly, srt run
 * once per command, and just-bash. Prints the table and rewrites the results part of
 * docs/benchmarks.md. `--quick` runs a fifth of the iterations; `--only=commands,files` some groups
 * (docs are then left alone).
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { writeFile } from 'node:fs/promises';
import { commandCases } from './cases/commands.ts';
import { fileCases } from './cases/files.ts';
import { httpCases } from './cases/http.ts';
import { httpsCases } from './cases/https.ts';
import { memoryCases } from './cases/memory.ts';
import { startupCases } from './cases/startup.ts';
import { templateCases } from './cases/template.ts';
import { closeContext, openContext, type BenchContext } from './lib/context.ts';
import { DOC, writeResults } from './lib/docs.ts';
import { describeMachine } from './lib/machine.ts';
import { markdownResults, textTable } from './lib/report.ts';
import type { Row } from './lib/results.ts';
import { removeScratch, scratch } from './lib/sandboxes.ts';

// The host's RSS grows with the large transfers, and a process's spawns slow down with its RSS (the
// host baselines spawn from here): the groups that move hundreds of MiB come last, and memory runs
// in a process of its own so its host figures start from a clean one.
const GROUPS: Record<string, (context: BenchContext) => Promise<void>> = {
  commands: commandCases,
  startup: startupCases,
  template: templateCases,
  network: httpsCases,
  ports: httpCases,
  files: fileCases,
  memory: memoryCases,
};
const OWN_PROCESS = new Set(['memory']);

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const only = args
  .find(arg => arg.startsWith('--only='))
  ?.slice('--only='.length)
  .split(',');
/** Set when this process runs one group for a parent: its rows go to this file. */
const rowsOut = args.find(arg => arg.startsWith('--rows-out='))?.slice('--rows-out='.length);
const unknown = only?.filter(name => !(name in GROUPS)) ?? [];
if (unknown.length > 0)
  throw new Error(`unknown group ${unknown.join(', ')}: use ${Object.keys(GROUPS).join(', ')}`);

const started = performance.now();
const machine = describeMachine();
if (!rowsOut)
  console.error(`${machine.cpu}, ${machine.cores} cores, node ${machine.node}, srt ${machine.srt}`);
const context = await openContext(quick);
try {
  for (const [name, group] of Object.entries(GROUPS)) {
    if (only && !only.includes(name)) continue;
    if (!rowsOut) console.error(`\n${name}`);
    if (OWN_PROCESS.has(name) && !rowsOut) {
      for (const row of await inOwnProcess(name)) context.results.add(row, true);
    } else {
      await group(context);
    }
  }
} finally {
  await closeContext(context);
  removeScratch();
}
if (rowsOut) {
  await writeFile(rowsOut, JSON.stringify(context.results.rows));
} else {
  const seconds = (performance.now() - started) / 1000;
  console.log(textTable(context.results.rows));
  if (!only) {
    await writeResults(markdownResults(context.results.rows, machine, seconds, quick));
    console.log(`\nwrote ${DOC} (${Math.round(seconds)} s)`);
  }
}
// srt keeps its proxy and helpers alive for the life of the process.
process.exit(0);

async function inOwnProcess(name: string): Promise<Row[]> {
  const file = join(scratch, `${name}-rows.json`);
  const argv = [
    '--expose-gc',
    process.argv[1]!,
    `--only=${name}`,
    `--rows-out=${file}`,
    ...(quick ? ['--quick'] : []),
  ];
  const child = promisify(execFile)(process.execPath, argv, { maxBuffer: 16 * 2 ** 20 });
  child.child.stderr?.pipe(process.stderr);
  await child;
  return JSON.parse(await readFile(file, 'utf8')) as Row[];
}
