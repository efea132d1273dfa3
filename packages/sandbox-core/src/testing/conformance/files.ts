import { posix } from 'node:path';
import { describe, expect } from 'vitest';
import { SETTLE_TIMEOUT, expectRejection, settle, within } from './settle.js';
import { chunkedStream, readAll } from './streams.js';
import type { ConformanceSuite } from './suite.js';

export function describeFiles({ check, sharedSession }: ConformanceSuite): void {
  describe('files', () => {
    const ctx = sharedSession();
    const s = () => ctx.session;

    check('writeTextFile and readTextFile round-trip text, creating parent directories', [], async () => {
      const path = posix.join(ctx.path('deep'), 'a', 'b', 'c.txt');
      const content = 'line one\nunicode: é € 𝄞 中文\n\ttabbed\n';
      await s().writeTextFile({ path, content });
      expect(await s().readTextFile({ path })).toBe(content);
    });

    check('a write replaces the whole file', [], async () => {
      const path = ctx.path('overwrite.txt');
      await s().writeTextFile({ path, content: 'a much longer first version' });
      await s().writeTextFile({ path, content: 'short' });
      expect(await s().readTextFile({ path })).toBe('short');
      expect((await s().run({ command: 'cat "$F"', env: { F: path } })).stdout).toBe('short');
    });

    check('an empty file reads as empty, not as missing', [], async () => {
      const path = ctx.path('empty');
      await s().writeBinaryFile({ path, content: new Uint8Array() });
      expect(await s().readTextFile({ path })).toBe('');
      expect(await s().readBinaryFile({ path })).toEqual(new Uint8Array());
    });

    check('reads of a missing file return null', [], async () => {
      for (const path of [ctx.path('missing.txt'), posix.join(ctx.path('missing-dir'), 'file.txt')]) {
        expect(await s().readTextFile({ path }), `readTextFile ${path}`).toBeNull();
        expect(await s().readBinaryFile({ path }), `readBinaryFile ${path}`).toBeNull();
        expect(await s().readFile({ path }), `readFile ${path}`).toBeNull();
      }
    });

    check('readTextFile selects 1-based inclusive line ranges', [], async () => {
      const path = ctx.path('lines.txt');
      await s().writeTextFile({ path, content: 'one\ntwo\nthree\nfour\n' });
      // Whether the last selected line keeps its newline is left to the implementation.
      const lines = async (startLine?: number, endLine?: number) =>
        (await s().readTextFile({ path, startLine, endLine }))?.replace(/\n$/, '');
      expect(await lines(2, 3)).toBe('two\nthree');
      expect(await lines(3, 99)).toBe('three\nfour');
      expect(await lines(2)).toBe('two\nthree\nfour');
      expect(await lines(undefined, 1)).toBe('one');
      expect(await lines(1, 1)).toBe('one');
    });

    check('binary files round-trip all 256 byte values', [], async () => {
      const path = ctx.path('bytes.bin');
      const copy = ctx.path('bytes-copy.bin');
      const bytes = new Uint8Array(512).map((_, index) => index % 256);
      await s().writeBinaryFile({ path, content: bytes });
      expect(await s().readBinaryFile({ path })).toEqual(bytes);
      // The same bytes as commands see them.
      const copied = await s().run({ command: 'cp "$A" "$B" && wc -c < "$A"', env: { A: path, B: copy } });
      expect(copied.stdout.trim()).toBe('512');
      expect(await s().readBinaryFile({ path: copy })).toEqual(bytes);
    });

    check(
      'writeFile takes a chunked stream and readFile returns one, for several megabytes',
      ['largeFiles'],
      async () => {
        const path = ctx.path('large.bin');
        const size = 6 * 1024 * 1024 + 7;
        const bytes = new Uint8Array(size).map((_, index) => (index * 7 + (index >>> 13)) & 255);
        await s().writeFile({ path, content: chunkedStream(bytes, [1, 1000, 65_536, 100_003, 1 << 20]) });
        expect((await s().run({ command: 'wc -c < "$F"', env: { F: path } })).stdout.trim()).toBe(
          String(size),
        );
        const stream = await s().readFile({ path });
        expect(stream).not.toBeNull();
        const read = await within(readAll(stream!), SETTLE_TIMEOUT, 'readFile() stream to end');
        expect(read.byteLength).toBe(size);
        expect(Buffer.compare(Buffer.from(read), Buffer.from(bytes))).toBe(0);
        const binary = await s().readBinaryFile({ path });
        expect(binary && Buffer.compare(Buffer.from(binary), Buffer.from(bytes))).toBe(0);
      },
      60_000,
    );

    check('relative paths resolve against defaultWorkingDirectory', [], async () => {
      const absolute = posix.join(ctx.path('relative'), 'note.txt');
      const relative = posix.relative(s().defaultWorkingDirectory, absolute);
      expect(relative.startsWith('..'), `${absolute} lies under defaultWorkingDirectory`).toBe(false);
      await s().writeTextFile({ path: relative, content: 'relative' });
      expect(await s().readTextFile({ path: absolute })).toBe('relative');
      expect(await s().readTextFile({ path: relative })).toBe('relative');
      expect((await s().run({ command: 'cat "$F"', env: { F: relative } })).stdout).toBe('relative');
    });

    check('host writes are visible to commands, and command writes to reads', [], async () => {
      const hostFile = ctx.path('from-host.txt');
      const commandFile = ctx.path('from-command.txt');
      await s().writeTextFile({ path: hostFile, content: 'from host' });
      const result = await s().run({
        command: 'cat "$A"; printf "from command" > "$B"',
        env: { A: hostFile, B: commandFile },
      });
      expect(result.stdout).toBe('from host');
      expect(await s().readTextFile({ path: commandFile })).toBe('from command');
      expect(new TextDecoder().decode((await s().readBinaryFile({ path: commandFile })) ?? undefined)).toBe(
        'from command',
      );
    });

    check('reading a directory throws rather than returning null', [], async () => {
      const dir = await ctx.directory('a-directory');
      const outcomes = {
        readTextFile: await settle(s().readTextFile({ path: dir }), SETTLE_TIMEOUT, 'readTextFile'),
        readBinaryFile: await settle(s().readBinaryFile({ path: dir }), SETTLE_TIMEOUT, 'readBinaryFile'),
        // A streaming read may fail when the stream is read rather than when it is opened.
        readFile: await settle(
          (async () => {
            const stream = await s().readFile({ path: dir });
            return stream === null ? null : readAll(stream);
          })(),
          SETTLE_TIMEOUT,
          'readFile',
        ),
      };
      for (const [method, outcome] of Object.entries(outcomes)) {
        expect(outcome.status, `${method} of a directory`).toBe('rejected');
      }
    });

    check('writing over a directory throws', ['writeOverDirectory'], async () => {
      const dir = await ctx.directory('not-a-file');
      await expectRejection(
        () => s().writeTextFile({ path: dir, content: 'x' }),
        'writeTextFile onto a directory',
      );
    });

    check('readTextFile and writeTextFile honour encoding', ['encodings'], async () => {
      const path = ctx.path('latin1.txt');
      await s().writeTextFile({ path, content: 'café ÿ', encoding: 'latin1' });
      expect(await s().readBinaryFile({ path })).toEqual(
        new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x20, 0xff]),
      );
      expect(await s().readTextFile({ path, encoding: 'latin1' })).toBe('café ÿ');
    });
  });
}
