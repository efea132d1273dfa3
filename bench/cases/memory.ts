/**
 * Memory: what one idle sandbox's processes cost (for srt: bwrap, srt's in-sandbox helpers and the
 * supervisor, all under the fenced child), what the host process costs with ten open, and both right
 * after a 256 MiB transfer; then whether run('true') is still as fast after it.
 */
import type { BenchContext } from '../lib/context.ts';
import { interleave } from '../lib/interleave.ts';
import { childrenAddedBy, footprint, listProcesses, treeOf, type Footprint } from '../lib/memory.ts';
import { newLocal, newSrt } from '../lib/sandboxes.ts';

const GROUP = 'Memory';
const TRANSFER = 256 * 2 ** 20;

type Session = Awaited<ReturnType<typeof newSrt>> | Awaited<ReturnType<typeof newLocal>>;

export async function memoryCases(context: BenchContext): Promise<void> {
  const { results } = context;
  const open: Session[] = [];
  try {
    const measured = new Map<string, { session: Session; root: number }>();
    for (const [name, create] of [
      ['srt', () => newSrt()],
      ['local', newLocal],
    ] as const) {
      const { value: session, added } = await childrenAddedBy<Session>(create);
      open.push(session);
      if (added.length !== 1)
        throw new Error(`expected one new child process for ${name}, found ${added.length}`);
      await session.run({ command: 'true' });
      measured.set(name, { session, root: added[0]!.pid });
    }
    await settle();
    const idle = new Map<string, Footprint>();
    for (const [name, { root }] of measured) {
      const tree = treeOf(root);
      const print = footprint(tree.map(info => info.pid));
      idle.set(name, print);
      const names = tree.map(info => info.name).join(', ');
      const rss = name === 'srt' ? { text: '<= 50 MB RSS', met: print.rssMB <= 50 } : undefined;
      results.addValue(GROUP, 'one idle sandbox, all its processes: RSS', name, print.rssMB, {
        target: rss,
        note: `${print.processes} processes: ${names}`,
      });
      results.addValue(GROUP, 'one idle sandbox, all its processes: PSS', name, print.pssMB);
    }
    const helpers = listProcesses().filter(info => info.ppid === process.pid && info.name === 'socat');
    const shared = footprint(helpers.map(info => info.pid));
    results.addValue(GROUP, "srt's host-side helpers, shared by all sandboxes: PSS", 'srt', shared.pssMB, {
      note: `${shared.processes} socat process(es) bridging the sandboxes' proxy socket to the host proxy`,
    });

    // Ten more of each: the host process's growth, and the sandboxes' processes together.
    for (const [name, create] of [
      ['srt', () => newSrt()],
      ['local', newLocal],
    ] as const) {
      const before = hostFootprint();
      const roots: number[] = [];
      for (let i = 0; i < 10; i++) {
        const { value, added } = await childrenAddedBy<Session>(create);
        open.push(value);
        roots.push(...added.map(info => info.pid));
      }
      await settle();
      const after = hostFootprint();
      const trees = footprint(roots.flatMap(root => treeOf(root).map(info => info.pid)));
      results.addValue(GROUP, 'host process, with 10 sandboxes open: PSS', name, after.pssMB, {
        ratio: `${signed(after.pssMB - before.pssMB)} for the 10`,
      });
      results.addValue(GROUP, "10 idle sandboxes' processes together: PSS", name, trees.pssMB, {
        note: `RSS ${trees.rssMB.toFixed(0)} MB`,
      });
    }

    // A 256 MiB write and read, then memory right away. The caller's own buffers are not counted:
    // the source is in the "before" figure, and the bytes read are dropped before measuring.
    const content = Buffer.alloc(TRANSFER, 7);
    for (const [name, { session, root }] of measured) {
      const idleHost = hostFootprint();
      const idleTree = idle.get(name)!;
      const path = `${session.defaultWorkingDirectory}/transfer.bin`;
      await transfer(session, path, content);
      const tree = footprint(treeOf(root).map(info => info.pid));
      const host = footprint([process.pid]);
      results.addValue(GROUP, 'sandbox processes right after a 256 MiB write + read: RSS', name, tree.rssMB, {
        ratio: `${signed(tree.rssMB - idleTree.rssMB)} vs idle`,
        target: { text: 'within 20 MB of idle', met: Math.abs(tree.rssMB - idleTree.rssMB) <= 20 },
      });
      results.addValue(
        GROUP,
        'host process right after a 256 MiB write + read (no GC): RSS',
        name,
        host.rssMB,
        {
          ratio: `${signed(host.rssMB - idleHost.rssMB)} vs before`,
        },
      );
      await settle(2000);
      const later = footprint(treeOf(root).map(info => info.pid));
      const hostLater = hostFootprint();
      results.addValue(GROUP, 'sandbox processes 2 s after the transfer: RSS', name, later.rssMB, {
        ratio: `${signed(later.rssMB - idleTree.rssMB)} vs idle`,
      });
      results.addValue(GROUP, 'host process 2 s after the transfer, after a GC: RSS', name, hostLater.rssMB, {
        ratio: `${signed(hostLater.rssMB - idleHost.rssMB)} vs before`,
        target: { text: 'within 20 MB of idle', met: Math.abs(hostLater.rssMB - idleHost.rssMB) <= 20 },
      });
      await session.run({ command: `rm -f ${path}` });
    }

    // run('true') on the sandbox that moved 256 MiB, against one that did not.
    const transferred = measured.get('srt')!.session;
    const untouched = open.find(session => session !== transferred && session.id.startsWith('srt'))!;
    const runs = await interleave(
      [
        { name: 'srt, idle sandbox', run: async () => void (await untouched.run({ command: 'true' })) },
        {
          name: 'srt, after 256 MiB transfer',
          run: async () => void (await transferred.run({ command: 'true' })),
        },
      ],
      { iterations: context.n(100), warmup: 3 },
    );
    results.addCase(GROUP, "run('true') after the transfer", runs, { baseline: 'srt, idle sandbox' });
  } finally {
    await Promise.allSettled(open.map(session => session.destroy()));
  }
}

/** Writes `content` and reads it back whole, keeping nothing. */
async function transfer(session: Session, path: string, content: Buffer): Promise<void> {
  await session.writeBinaryFile({ path, content });
  const read = await session.readBinaryFile({ path });
  if (read?.byteLength !== content.byteLength) throw new Error('the transfer came back short');
}

function signed(megabytes: number): string {
  return `${megabytes >= 0 ? '+' : ''}${megabytes.toFixed(1)} MB`;
}

/** This process after a full GC (run with --expose-gc), so garbage is not counted. */
function hostFootprint(): Footprint {
  (globalThis as { gc?: () => void }).gc?.();
  return footprint([process.pid]);
}

function settle(ms = 300): Promise<void> {
  return new Promise(resolve => setTimeout(resolve, ms));
}
