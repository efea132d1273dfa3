/** Files: 1 MiB and 256 MiB each way, streamed and whole, and many small files. */
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { BenchContext } from '../lib/context.ts';
import { interleave, type Subject } from '../lib/interleave.ts';
import { hostDirectory } from '../lib/sandboxes.ts';
import type { CaseOptions } from '../lib/results.ts';
import type { Summary } from '../lib/stats.ts';

const GROUP = 'Files';
const JUST_BASH_NOTE = 'in-memory file system that keeps buffers by reference: no copy, no I/O';

type FileSession = BenchContext['srt'] | BenchContext['local'] | BenchContext['justBash'];

export async function fileCases(context: BenchContext): Promise<void> {
  const { srt, local, justBash } = context;
  const host = hostDirectory('files');
  const sessions: Array<[string, FileSession, string]> = [
    ['local', local, local.defaultWorkingDirectory],
    ['srt', srt, srt.defaultWorkingDirectory],
    ['just-bash', justBash, justBash.defaultWorkingDirectory],
  ];

  for (const [size, iterations] of [
    [2 ** 20, context.n(40)],
    [256 * 2 ** 20, context.n(3)],
  ] as const) {
    const content = Buffer.alloc(size);
    for (let i = 0; i < size; i += 4096) content.writeUInt32LE(i, i); // not all zeros, cheaply
    const label = size === 2 ** 20 ? '1 MiB' : '256 MiB';
    const large = size > 2 ** 20;
    const target = large
      ? (summary: Summary, baseline: Summary | undefined) => {
          const share = baseline ? baseline.median / summary.median : 0;
          return { text: '>= 50% of fs', met: share >= 0.5 };
        }
      : undefined;
    const options: CaseOptions = {
      bytes: size,
      targets: target ? { srt: target } : undefined,
      notes: { 'just-bash': JUST_BASH_NOTE },
    };
    const file = (directory: string) => join(directory, `bench-${label.replace(' ', '')}.bin`);
    const expectSize = (bytes: number) => {
      if (bytes !== size) throw new Error(`read ${bytes} bytes, expected ${size}`);
    };

    const writes = (streamed: boolean): Subject[] => [
      {
        name: 'host',
        run: () =>
          streamed
            ? pipeline(Readable.fromWeb(chunked(content) as never), createWriteStream(file(host)))
            : writeFile(file(host), content),
      },
      ...sessions.map(([name, session, directory]) => ({
        name,
        run: () =>
          streamed
            ? session.writeFile({ path: file(directory), content: chunked(content) })
            : session.writeBinaryFile({ path: file(directory), content }),
      })),
    ];
    results(
      context,
      `writeFile ${label} (stream)`,
      await interleave(writes(true), { iterations, warmup: 1 }),
      options,
    );
    results(
      context,
      `writeBinaryFile ${label}`,
      await interleave(writes(false), { iterations, warmup: 1 }),
      options,
    );

    const reads = (streamed: boolean): Subject[] => [
      {
        name: 'host',
        run: async () => {
          if (!streamed) return expectSize((await readFile(file(host))).byteLength);
          let bytes = 0;
          for await (const chunk of createReadStream(file(host))) bytes += (chunk as Buffer).byteLength;
          expectSize(bytes);
        },
      },
      ...sessions.map(([name, session, directory]) => ({
        name,
        run: async () => {
          if (!streamed)
            return expectSize((await session.readBinaryFile({ path: file(directory) }))!.byteLength);
          expectSize(await countBytes((await session.readFile({ path: file(directory) }))!));
        },
      })),
    ];
    results(
      context,
      `readFile ${label} (stream)`,
      await interleave(reads(true), { iterations, warmup: 1 }),
      options,
    );
    results(
      context,
      `readBinaryFile ${label}`,
      await interleave(reads(false), { iterations, warmup: 1 }),
      options,
    );
    await Promise.all([
      rm(file(host), { force: true }),
      ...sessions.map(([, session, directory]) => session.run({ command: `rm -f ${file(directory)}` })),
    ]);
  }

  // 1,000 small files, one after another, the way an agent's tools touch a tree.
  const small = Buffer.alloc(1024, 97);
  let round = 0;
  const many =
    (
      write: (path: string) => PromiseLike<unknown>,
      read: (path: string) => PromiseLike<unknown>,
      root: string,
    ) =>
    async () => {
      const directory = join(root, `many-${round++}`);
      for (let i = 0; i < 1000; i++) await write(join(directory, `f${i}.txt`));
      for (let i = 0; i < 1000; i++) await read(join(directory, `f${i}.txt`));
    };
  const manySamples = await interleave(
    [
      {
        name: 'host',
        run: async () => {
          await mkdir(join(host, `many-${round}`), { recursive: true });
          await many(
            path => writeFile(path, small),
            path => readFile(path),
            host,
          )();
        },
      },
      ...sessions.map(([name, session, directory]) => ({
        name,
        run: many(
          path => session.writeBinaryFile({ path, content: small }),
          path => session.readBinaryFile({ path }),
          directory,
        ),
      })),
    ],
    { iterations: context.n(5), warmup: 1 },
  );
  context.results.addCase(GROUP, '1,000 files of 1 KiB written, then read', manySamples, {
    notes: { 'just-bash': JUST_BASH_NOTE },
  });
}

function results(
  context: BenchContext,
  label: string,
  samples: Map<string, number[]>,
  options: CaseOptions,
): void {
  context.results.addCase(GROUP, label, samples, options);
}

async function countBytes(stream: ReadableStream<Uint8Array>): Promise<number> {
  const reader = stream.getReader();
  let bytes = 0;
  for (let next = await reader.read(); !next.done; next = await reader.read()) bytes += next.value.byteLength;
  return bytes;
}

/** The content as a stream of 1 MiB views (no copies), as a caller streaming a file would hand it. */
function chunked(content: Buffer): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= content.byteLength) return controller.close();
      const end = Math.min(offset + 2 ** 20, content.byteLength);
      controller.enqueue(content.subarray(offset, end));
      offset = end;
    },
  });
}
