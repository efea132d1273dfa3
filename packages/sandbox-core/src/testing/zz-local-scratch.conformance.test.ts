// TEMPORARY scratch: mutants of the local sandbox, to see that the suite catches them; deleted after use.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalNetworkSandboxSession } from '../../../sandbox-local/src/index.js';
import { describeSandboxConformance } from './conformance.js';

const directory = mkdtempSync(join(tmpdir(), 'conf-local-'));
type S = any;
const mutants: Record<string, (s: S) => S> = {
  cwdRoot: (s) => Object.assign(Object.create(s), { run: (o: S) => s.run({ ...o, workingDirectory: o.workingDirectory ?? '/' }) }),
  envInterpolated: (s) =>
    Object.assign(Object.create(s), {
      run: (o: S) =>
        s.run({ ...o, env: undefined, command: Object.entries(o.env ?? {}).map(([k, v]) => `export ${k}="${v}"; `).join('') + o.command }),
    }),
  restrictedFull: (s) => Object.assign(Object.create(s), { restricted: () => s }),
  portUrlQuery: (s) => Object.assign(Object.create(s), { getPortUrl: async (o: S) => (await s.getPortUrl(o)) + '?x=1' }),
  spawnWaits: (s) =>
    Object.assign(Object.create(s), {
      spawn: async (o: S) => { const p = await s.spawn(o); await p.wait(); return p; },
    }),
  nullOnError: (s) =>
    Object.assign(Object.create(s), { readTextFile: async (o: S) => { try { return await s.readTextFile(o); } catch { return null; } } }),
  abortResolves: (s) =>
    Object.assign(Object.create(s), {
      run: async (o: S) => { try { return await s.run(o); } catch { return { exitCode: 130, stdout: '', stderr: '' }; } },
    }),
  noLiveOutput: (s) =>
    Object.assign(Object.create(s), {
      spawn: async (o: S) => {
        const p = await s.spawn(o);
        const all = new Response(p.stdout).arrayBuffer();
        const stdout = new ReadableStream({ async start(c) { c.enqueue(new Uint8Array(await all)); c.close(); } });
        return { stderr: p.stderr, wait: () => p.wait(), kill: () => p.kill(), stdout };
      },
    }),
};
for (const [name, mutate] of Object.entries(mutants)) {
  describeSandboxConformance(`mutant ${name}`, {
    create: async () => mutate(await createLocalNetworkSandboxSession({ directory, portCount: 1 })),
  });
}
