/**
 * A conformance suite for any `HarnessV1NetworkSandboxSession`: what the harness, its adapters and
 * AI SDK tools rely on (harness-contract.md §1, §2.1, §4, §6), checked through the public surface only.
 * Call `describeSandboxConformance()` from a test file with a `create` that makes a fresh session;
 * a sandbox that cannot do something lists it in `skip` with the reason, which the skipped test's
 * title shows.
 */
import { randomUUID } from 'node:crypto';
import { posix } from 'node:path';
import { HarnessCapabilityUnsupportedError, type HarnessV1NetworkSandboxSession } from '@ai-sdk/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** What each skippable capability means; a sandbox lacking one names it in `ConformanceOptions.skip`. */
export const conformanceCapabilities = {
  ports:
    'The ports in `ports` are reachable from the host: a server listening on one inside the sandbox answers at getPortEndpoint()/getPortUrl().',
  realProcesses:
    'Commands are OS processes: `$$` and `$!` are pids another command can probe with `kill -0`, signals end them (exit 128+n), and programs such as `node` run.',
  killDescendants: 'kill() and aborts also end the children a command started (`sleep 1000 & wait`).',
  backgroundJobs:
    'run() returns when the shell exits, even while a background job it started still runs and holds stdout open.',
  liveOutput:
    "spawn() delivers stdout while the process still runs, not when it ends (the bridge's ready line).",
  abortRejects: 'run() rejects when its signal aborts while the command runs.',
  largeFiles: 'Multi-megabyte files stream through writeFile() and readFile().',
  encodings: 'readTextFile() and writeTextFile() honour `encoding` (latin1).',
  writeOverDirectory: 'A write onto an existing directory fails rather than replacing it.',
  lifecycle: 'stop() ends running processes, and calls after destroy() reject.',
} as const;

export type ConformanceCapability = keyof typeof conformanceCapabilities;

export interface ConformanceOptions {
  /** Creates a fresh session for a test or a describe block; the suite destroys it afterwards. */
  create: () => PromiseLike<HarnessV1NetworkSandboxSession>;
  /** Capabilities the sandbox lacks, each with the reason shown in the skipped tests' titles. */
  skip?: Partial<Record<ConformanceCapability, string>>;
}

type Session = HarnessV1NetworkSandboxSession;
type RestrictedSession = ReturnType<Session['restricted']>;

// Generous bounds: they only turn a hang into a readable failure, they measure nothing.
const TEST_TIMEOUT = 30_000;
const SETTLE_TIMEOUT = 15_000;
const HOOK_TIMEOUT = 60_000;

export function describeSandboxConformance(name: string, options: ConformanceOptions): void {
  const skip = validateSkips(options.skip ?? {});

  /** Registers a test that needs the given capabilities, or skips it with the reason if one is lacking. */
  function check(
    title: string,
    needs: readonly ConformanceCapability[],
    fn: () => Promise<void>,
    timeout = TEST_TIMEOUT,
  ): void {
    const lacking = needs.find(capability => skip[capability] !== undefined);
    if (lacking !== undefined) {
      it.skip(`${title} (skipped, no ${lacking}: ${skip[lacking]})`, fn);
    } else {
      it(title, fn, timeout);
    }
  }

  const withFresh = (fn: (session: Session) => Promise<void>) => withFreshSession(options.create, fn);

  describe(`sandbox conformance: ${name}`, () => {
    describe('identity', () => {
      const ctx = useSharedSession(options.create);

      check('description is a non-empty string', [], async () => {
        expect(typeof ctx.session.description).toBe('string');
        expect(ctx.session.description.trim()).not.toBe('');
      });

      check('id is a non-empty string', [], async () => {
        expect(typeof ctx.session.id).toBe('string');
        expect(ctx.session.id.trim()).not.toBe('');
      });

      check('defaultWorkingDirectory is an absolute path to an existing directory', [], async () => {
        const dwd = ctx.session.defaultWorkingDirectory;
        expect(posix.isAbsolute(dwd), `defaultWorkingDirectory ${JSON.stringify(dwd)}`).toBe(true);
        const result = await ctx.session.run({ command: '[ -d "$DIR" ] && echo yes', env: { DIR: dwd } });
        expect(result.stdout).toBe('yes\n');
      });

      check('two sessions have different ids', [], async () => {
        await withFresh(async other => {
          expect(other.id).not.toBe(ctx.session.id);
        });
      });
    });

    describe('run', () => {
      const ctx = useSharedSession(options.create);

      check('captures stdout and stderr separately and resolves a non-zero exit', [], async () => {
        const result = await ctx.session.run({ command: 'printf out; printf err >&2; exit 3' });
        expect(result).toEqual({ exitCode: 3, stdout: 'out', stderr: 'err' });
        expect((await ctx.session.run({ command: 'false' })).exitCode).toBe(1);
        expect((await ctx.session.run({ command: 'true' })).exitCode).toBe(0);
      });

      check('runs the command through bash', [], async () => {
        const result = await ctx.session.run({
          command: 'a=(x y z); [[ abc == a* ]] && echo "$((1+2)) ${#a[@]} ${BASH_VERSION:+bash}"',
        });
        expect(result).toMatchObject({ exitCode: 0, stdout: '3 3 bash\n' });
      });

      check('passes env values verbatim, never interpolating them into the script', [], async () => {
        const marker = ctx.path('injected');
        const value =
          `$(touch ${marker}) \`touch ${marker}\` "double" 'single' \\back $HOME ${'${HOME}'} ;|&<>*?` +
          `\ta=b=c\nsecond line\n`;
        const result = await ctx.session.run({
          command: 'printf "%s" "$TRICKY"; printf "|%s" "$OTHER_1"',
          env: { TRICKY: value, OTHER_1: "it's" },
        });
        expect(result.stdout).toBe(`${value}|it's`);
        expect(await ctx.session.readBinaryFile({ path: marker })).toBeNull();
      });

      check('env overrides the defaults, keeps the rest, and applies to that command only', [], async () => {
        const home = ctx.path('custom-home');
        const overridden = await ctx.session.run({
          command: 'printf "%s" "$HOME"; [ -n "$PATH" ] && ls / >/dev/null && printf " path-ok"',
          env: { HOME: home, CONFORMANCE_ONCE: '1' },
        });
        expect(overridden.stdout).toBe(`${home} path-ok`);
        const next = await ctx.session.run({ command: 'printf "%s|%s" "${CONFORMANCE_ONCE-unset}" "$HOME"' });
        expect(next.stdout).not.toContain(home);
        expect(next.stdout.startsWith('unset|')).toBe(true);
      });

      check('starts in defaultWorkingDirectory when no workingDirectory is given', [], async () => {
        const result = await ctx.session.run({ command: 'pwd' });
        expect(result.stdout).toBe(`${ctx.session.defaultWorkingDirectory}\n`);
      });

      check('honours workingDirectory', [], async () => {
        const dir = ctx.path('work dir');
        await ctx.session.run({ command: 'mkdir -p "$DIR"', env: { DIR: dir } });
        const result = await ctx.session.run({
          command: 'pwd; printf here > file.txt',
          workingDirectory: dir,
        });
        expect(result).toMatchObject({ exitCode: 0, stdout: `${dir}\n` });
        expect(await ctx.session.readTextFile({ path: posix.join(dir, 'file.txt') })).toBe('here');
      });

      check('starts every command afresh: cd and variables do not carry over', [], async () => {
        await ctx.session.run({ command: 'cd /; CONFORMANCE_LEAK=1; export CONFORMANCE_LEAK' });
        const result = await ctx.session.run({ command: 'pwd; printf "%s" "${CONFORMANCE_LEAK-unset}"' });
        expect(result.stdout).toBe(`${ctx.session.defaultWorkingDirectory}\nunset`);
      });

      check('keeps concurrent commands apart', [], async () => {
        const results = await Promise.all(
          Array.from({ length: 8 }, (_, index) =>
            ctx.session.run({
              command: 'printf "%s" "$N"; sleep 0.1; printf "%s" "$N" >&2; exit "$N"',
              env: { N: String(index) },
            }),
          ),
        );
        results.forEach((result, index) => {
          expect(result).toEqual({ exitCode: index, stdout: String(index), stderr: String(index) });
        });
      });

      check('decodes large UTF-8 output whole, across chunk boundaries', [], async () => {
        const path = ctx.path('utf8.txt');
        const content = 'é€𝄞'.repeat(50_000);
        await ctx.session.writeTextFile({ path, content });
        const result = await ctx.session.run({ command: 'cat "$FILE"', env: { FILE: path } });
        expect(result.stdout.length).toBe(content.length);
        expect(result.stdout === content).toBe(true);
      });

      check('rejects without running when the signal is already aborted', [], async () => {
        const marker = ctx.path('pre-aborted');
        const controller = new AbortController();
        controller.abort();
        await expectRejection(
          () =>
            ctx.session.run({
              command: 'touch "$MARKER"',
              env: { MARKER: marker },
              abortSignal: controller.signal,
            }),
          'run() with an aborted signal',
        );
        // Give a command that slipped through the time to create its marker before looking.
        await ctx.session.run({ command: 'sleep 0.2' });
        expect(await ctx.session.readBinaryFile({ path: marker })).toBeNull();
      });

      check('an abort during a long command ends it promptly', [], async () => {
        const started = ctx.path('abort-started');
        const controller = new AbortController();
        const running = ctx.session.run({
          command: 'touch "$STARTED"; sleep 30',
          env: { STARTED: started },
          abortSignal: controller.signal,
        });
        await waitForFile(ctx.session, started);
        controller.abort();
        await settle(running, SETTLE_TIMEOUT, 'run() after its signal aborted');
      });

      check('an abort during a long command rejects', ['abortRejects'], async () => {
        const started = ctx.path('abort-started');
        const controller = new AbortController();
        const running = ctx.session.run({
          command: 'touch "$STARTED"; sleep 30',
          env: { STARTED: started },
          abortSignal: controller.signal,
        });
        await waitForFile(ctx.session, started);
        controller.abort();
        await expectRejection(() => running, 'run() after its signal aborted');
      });

      check('an abort kills the command and its children', ['realProcesses', 'killDescendants'], async () => {
        const pidFile = ctx.path('abort-child.pid');
        const controller = new AbortController();
        const running = ctx.session.run({
          command: 'sleep 1000 & echo $! > "$PIDFILE"; wait',
          env: { PIDFILE: pidFile },
          abortSignal: controller.signal,
        });
        const pid = await waitForPid(ctx.session, pidFile);
        controller.abort();
        await settle(running, SETTLE_TIMEOUT, 'run() after its signal aborted');
        await waitUntil(async () => !(await isAlive(ctx.session, pid)), `pid ${pid} to end after the abort`);
      });
    });

    describe('command shapes the harness uses', () => {
      const ctx = useSharedSession(options.create);

      check('mkdir -p "$BOOTSTRAP_DIR", write a file there, run a command in it', [], async () => {
        const dir = ctx.path('bootstrap');
        const made = await ctx.session.run({
          command: 'mkdir -p "$BOOTSTRAP_DIR"',
          env: { BOOTSTRAP_DIR: dir },
        });
        expect(made.exitCode).toBe(0);
        await ctx.session.writeTextFile({ path: posix.join(dir, 'package.json'), content: '{"name":"x"}' });
        const listed = await ctx.session.run({ command: 'cat package.json', workingDirectory: dir });
        expect(listed).toMatchObject({ exitCode: 0, stdout: '{"name":"x"}' });
      });

      check('printf "%s" "$HOME" prints an absolute, writable home directory', [], async () => {
        const result = await ctx.session.run({ command: 'printf "%s" "$HOME"' });
        expect(result.exitCode).toBe(0);
        expect(posix.isAbsolute(result.stdout), `HOME ${JSON.stringify(result.stdout)}`).toBe(true);
        const writable = await ctx.session.run({ command: '[ -d "$HOME" ] && [ -w "$HOME" ] && echo yes' });
        expect(writable.stdout).toBe('yes\n');
      });

      check('pwd prints defaultWorkingDirectory', [], async () => {
        const result = await ctx.session.run({ command: 'pwd' });
        expect(result).toMatchObject({ exitCode: 0, stdout: `${ctx.session.defaultWorkingDirectory}\n` });
      });

      check(
        'a file written from the host can be moved with mv -f (how skills are installed)',
        [],
        async () => {
          const dir = ctx.path('skills');
          const staged = posix.join(dir, '.tmp-skill.md');
          const target = posix.join(dir, 'skill', 'SKILL.md');
          await ctx.session.writeTextFile({ path: staged, content: '# skill\n' });
          const moved = await ctx.session.run({
            command: 'mkdir -p "$(dirname "$TARGET")" && mv -f "$STAGED" "$TARGET"',
            env: { STAGED: staged, TARGET: target },
          });
          expect(moved.exitCode).toBe(0);
          expect(await ctx.session.readTextFile({ path: target })).toBe('# skill\n');
          expect(await ctx.session.readTextFile({ path: staged })).toBeNull();
        },
      );
    });

    describe('signals', () => {
      const ctx = useSharedSession(options.create);

      check('a command killed by a signal reports 128+n', ['realProcesses'], async () => {
        expect((await ctx.session.run({ command: 'kill -TERM $$' })).exitCode).toBe(143);
        expect((await ctx.session.run({ command: 'kill -KILL $$' })).exitCode).toBe(137);
        const spawned = await ctx.session.spawn({ command: 'kill -TERM $$' });
        const drained = drain(spawned);
        expect(await within(spawned.wait(), SETTLE_TIMEOUT, 'wait()')).toEqual({ exitCode: 143 });
        await drained;
      });
    });

    describe('spawn', () => {
      const ctx = useSharedSession(options.create);

      check('returns a handle while the process runs; wait() gives its exit code', [], async () => {
        const go = ctx.path('go');
        const dir = ctx.path('spawn-cwd');
        await ctx.session.run({ command: 'mkdir -p "$DIR"', env: { DIR: dir } });
        const child = await within(
          ctx.session.spawn({
            command:
              'while [ ! -e "$GO" ]; do sleep 0.05; done; pwd; printf "%s" "$VALUE"; echo oops >&2; exit 5',
            env: { GO: go, VALUE: '$(not run)' },
            workingDirectory: dir,
          }),
          SETTLE_TIMEOUT,
          'spawn() of a process that waits for a file (spawn must not wait for the process)',
        );
        const stdout = readText(child.stdout);
        const stderr = readText(child.stderr);
        await ctx.session.writeTextFile({ path: go, content: '' });
        expect(await within(child.wait(), SETTLE_TIMEOUT, 'wait()')).toEqual({ exitCode: 5 });
        expect(await within(stdout, SETTLE_TIMEOUT, 'stdout to end')).toBe(`${dir}\n$(not run)`);
        expect(await within(stderr, SETTLE_TIMEOUT, 'stderr to end')).toBe('oops\n');
      });

      check('starts in defaultWorkingDirectory when no workingDirectory is given', [], async () => {
        const child = await ctx.session.spawn({ command: 'pwd' });
        const stdout = readText(child.stdout);
        await readText(child.stderr);
        expect(await child.wait()).toEqual({ exitCode: 0 });
        expect(await stdout).toBe(`${ctx.session.defaultWorkingDirectory}\n`);
      });

      check('streams stdout while the process runs', ['liveOutput'], async () => {
        const go = ctx.path('never');
        const child = await ctx.session.spawn({
          command: 'echo first; while [ ! -e "$GO" ]; do sleep 0.05; done; echo second',
          env: { GO: go },
        });
        const stderr = readText(child.stderr);
        const reader = child.stdout.getReader();
        try {
          // The process cannot end before `go` exists, so seeing `first` proves the output is live.
          let seen = '';
          const decoder = new TextDecoder();
          await within(
            (async () => {
              while (!seen.includes('first\n')) {
                const { value, done } = await reader.read();
                if (done)
                  throw new Error(`stdout ended before "first" arrived (got ${JSON.stringify(seen)})`);
                seen += decoder.decode(value, { stream: true });
              }
            })(),
            SETTLE_TIMEOUT,
            'the first line of stdout while the process still runs',
          );
          await child.kill();
          await settle(child.wait(), SETTLE_TIMEOUT, 'wait() after kill()');
          let rest = '';
          for (;;) {
            const { value, done } = await within(reader.read(), SETTLE_TIMEOUT, 'stdout to end after kill()');
            if (done) break;
            rest += decoder.decode(value, { stream: true });
          }
          expect(seen + rest).not.toContain('second');
        } finally {
          reader.releaseLock();
          await child.kill();
        }
        await stderr;
      });

      check('kill() ends the process, ends its streams and is idempotent', [], async () => {
        const child = await ctx.session.spawn({ command: 'sleep 1000' });
        const drained = drain(child);
        await Promise.all([child.kill(), child.kill()]);
        const result = await within(child.wait(), SETTLE_TIMEOUT, 'wait() after kill()');
        expect(result.exitCode).not.toBe(0);
        await within(drained, SETTLE_TIMEOUT, 'stdout and stderr to end after kill()');
        await within(child.kill(), SETTLE_TIMEOUT, 'a third kill()');
      });

      check('kill() after the process exited resolves', [], async () => {
        const child = await ctx.session.spawn({ command: 'exit 0' });
        await drain(child);
        expect(await child.wait()).toEqual({ exitCode: 0 });
        await within(child.kill(), SETTLE_TIMEOUT, 'kill() after exit');
      });

      check(
        'kill() also ends the children of the process',
        ['realProcesses', 'killDescendants'],
        async () => {
          const pidFile = ctx.path('child.pid');
          const child = await ctx.session.spawn({
            command: 'sleep 1000 & echo $! > "$PIDFILE"; wait',
            env: { PIDFILE: pidFile },
          });
          const drained = drain(child);
          const pid = await waitForPid(ctx.session, pidFile);
          expect(await isAlive(ctx.session, pid), `child ${pid} alive before kill()`).toBe(true);
          await child.kill();
          await within(child.wait(), SETTLE_TIMEOUT, 'wait() after kill()');
          // A child that survived would hold stdout open.
          await within(drained, SETTLE_TIMEOUT, 'stdout and stderr to end after kill()');
          await waitUntil(async () => !(await isAlive(ctx.session, pid)), `child ${pid} to end after kill()`);
        },
      );

      check('an abort ends the process and wait() rejects with the reason', [], async () => {
        const started = ctx.path('spawn-abort-started');
        const controller = new AbortController();
        const child = await ctx.session.spawn({
          command: 'touch "$STARTED"; sleep 30',
          env: { STARTED: started },
          abortSignal: controller.signal,
        });
        const drained = drain(child);
        await waitForFile(ctx.session, started);
        const reason = new Error('conformance abort');
        controller.abort(reason);
        const error = await expectRejection(() => child.wait(), 'wait() after the abort');
        expect(error).toBe(reason);
        await within(drained, SETTLE_TIMEOUT, 'stdout and stderr to end after the abort');
      });

      check('rejects without running when the signal is already aborted', [], async () => {
        const marker = ctx.path('spawn-pre-aborted');
        const controller = new AbortController();
        controller.abort();
        await expectRejection(
          () =>
            ctx.session.spawn({
              command: 'touch "$MARKER"',
              env: { MARKER: marker },
              abortSignal: controller.signal,
            }),
          'spawn() with an aborted signal',
        );
        await ctx.session.run({ command: 'sleep 0.2' });
        expect(await ctx.session.readBinaryFile({ path: marker })).toBeNull();
      });
    });

    describe('background jobs', () => {
      const ctx = useSharedSession(options.create);

      for (const [shape, command] of [
        ['sleep 30 >/dev/null 2>&1 &', 'sleep 30 >/dev/null 2>&1 & echo $! > "$PIDFILE"; echo started'],
        ['(sleep 30) & (keeps stdout open)', '(sleep 30) & echo $! > "$PIDFILE"; echo started'],
      ] as const) {
        check(
          `run() returns when the shell exits, not when \`${shape}\` ends`,
          ['backgroundJobs'],
          async () => {
            const pidFile = ctx.path('job.pid');
            try {
              const result = await within(
                ctx.session.run({ command, env: { PIDFILE: pidFile } }),
                SETTLE_TIMEOUT,
                'run() of a command that leaves a 30 s background job',
              );
              expect(result).toMatchObject({ exitCode: 0, stdout: 'started\n' });
            } finally {
              await ctx.session
                .run({ command: 'kill "$(cat "$PIDFILE")" 2>/dev/null; true', env: { PIDFILE: pidFile } })
                .then(undefined, () => undefined);
            }
          },
        );
      }
    });

    describe('files', () => {
      const ctx = useSharedSession(options.create);
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
        const dir = ctx.path('a-directory');
        await s().run({ command: 'mkdir -p "$D"', env: { D: dir } });
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
        const dir = ctx.path('not-a-file');
        await s().run({ command: 'mkdir -p "$D"', env: { D: dir } });
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

    describe('restricted()', () => {
      const ctx = useSharedSession(options.create);

      check('has the basic SandboxSession surface', [], async () => {
        const restricted = ctx.session.restricted();
        expect(typeof restricted.description).toBe('string');
        expect(restricted.description.trim()).not.toBe('');
        for (const method of [
          'run',
          'spawn',
          'readFile',
          'readBinaryFile',
          'readTextFile',
          'writeFile',
          'writeBinaryFile',
          'writeTextFile',
        ] as const) {
          expect(typeof restricted[method], method).toBe('function');
        }
      });

      check('lacks lifecycle, port, network and transformation members', [], async () => {
        const restricted = ctx.session.restricted() as unknown as Record<string, unknown>;
        for (const member of [
          'stop',
          'destroy',
          'getPortEndpoint',
          'getPortUrl',
          'setNetworkPolicy',
          'addRequestTransformations',
          'setRequestTransformations',
          'setPorts',
          'restricted',
        ]) {
          // Adapters detect members with `'x' in s && s.x != null`, so an undefined one counts as absent.
          expect(restricted[member] == null, `restricted().${member} is absent`).toBe(true);
        }
      });

      check('operates on the same sandbox as the full session', [], async () => {
        const restricted: RestrictedSession = ctx.session.restricted();
        const viaRestricted = ctx.path('via-restricted.txt');
        const viaFull = ctx.path('via-full.txt');
        await restricted.writeTextFile({ path: viaRestricted, content: 'restricted' });
        expect(await ctx.session.readTextFile({ path: viaRestricted })).toBe('restricted');
        await ctx.session.writeTextFile({ path: viaFull, content: 'full' });
        const result = await restricted.run({ command: 'pwd; cat "$F"', env: { F: viaFull } });
        expect(result.stdout).toBe(`${ctx.session.defaultWorkingDirectory}\nfull`);
      });
    });

    describe('optional members', () => {
      check('present optional members are functions that return promises', [], async () => {
        await withFresh(async session => {
          // Arguments that change nothing on a fresh session (deny-all aside, which every policy supports).
          const argumentsFor: Record<string, unknown[]> = {
            setNetworkPolicy: [{ mode: 'deny-all' }],
            addRequestTransformations: [[]],
            setRequestTransformations: [[]],
            setPorts: [[...session.ports]],
          };
          const members = session as unknown as Record<string, unknown>;
          for (const [member, args] of Object.entries(argumentsFor)) {
            const value = members[member];
            if (value == null) continue;
            expect(typeof value, member).toBe('function');
            const result: unknown = Reflect.apply(value as (...a: unknown[]) => unknown, session, args);
            expect(isPromiseLike(result), `${member}() returns a promise`).toBe(true);
            const outcome = await settle(result as PromiseLike<unknown>, SETTLE_TIMEOUT, `${member}()`);
            if (outcome.status === 'rejected') {
              expect(outcome.reason, `${member}() rejects with an Error`).toBeInstanceOf(Error);
            }
          }
        });
      });
    });

    describe('ports', () => {
      const ctx = useSharedSession(options.create);

      check('ports is an array of valid port numbers', [], async () => {
        expect(Array.isArray(ctx.session.ports)).toBe(true);
        for (const port of ctx.session.ports) {
          expect(Number.isInteger(port) && port > 0 && port < 65_536, `port ${port}`).toBe(true);
        }
      });

      check('a port not in `ports` is refused', [], async () => {
        let port = 1;
        while (ctx.session.ports.includes(port)) port += 1;
        for (const protocol of ['http', 'ws'] as const) {
          for (const [method, call] of [
            ['getPortEndpoint', () => ctx.session.getPortEndpoint({ port, protocol })],
            ['getPortUrl', () => ctx.session.getPortUrl({ port, protocol })],
          ] as const) {
            const error = await expectRejection(call, `${method}({port: ${port}, protocol: '${protocol}'})`);
            expect(
              HarnessCapabilityUnsupportedError.isInstance(error),
              `${method} rejects with HarnessCapabilityUnsupportedError, got ${String(error)}`,
            ).toBe(true);
          }
        }
      });

      check(
        'a server on each port answers HTTP and WebSocket from the host',
        ['ports', 'realProcesses'],
        async () => {
          expect(
            ctx.session.ports.length,
            "create() exposes at least one port, or skips 'ports'",
          ).toBeGreaterThan(0);
          for (const port of ctx.session.ports) {
            const reply = `hello-${port}`;
            const server = await ctx.session.spawn({
              command: 'exec node -e "$SERVER"',
              env: { SERVER: SERVER_SCRIPT, PORT: String(port), REPLY: reply },
            });
            const serverOutput = drain(server);
            try {
              const endpoint = await ctx.session.getPortEndpoint({ port, protocol: 'http' });
              expect(endpoint.url).toMatch(/^https?:\/\//);
              const body = await waitForHttp(new URL('/probe?x=1', endpoint.url), endpoint.headers);
              expect(body).toBe(`${reply} /probe?x=1`);

              // claude-code 1.0.41 appends its token to getPortUrl()'s result by string concatenation.
              const wsUrl = await ctx.session.getPortUrl({ port, protocol: 'ws' });
              expect(wsUrl).toMatch(/^wss?:\/\//);
              expect(wsUrl).not.toContain('?');
              const message = await webSocketMessage(`${wsUrl}?agent_bridge_token=t0k`);
              expect(message).toBe(`${reply} /?agent_bridge_token=t0k`);

              const wsEndpoint = await ctx.session.getPortEndpoint({ port, protocol: 'ws' });
              expect(wsEndpoint.url).toMatch(/^wss?:\/\//);
              const url = new URL(wsEndpoint.url);
              url.searchParams.set('agent_bridge_token', 't1k');
              expect(await webSocketMessage(url.toString(), wsEndpoint.headers)).toBe(
                `${reply} ${url.pathname}?agent_bridge_token=t1k`,
              );
            } finally {
              await server.kill();
              await settle(serverOutput, SETTLE_TIMEOUT, 'the server to end');
            }
          }
        },
        60_000,
      );
    });

    describe('lifecycle', () => {
      check('stop() is idempotent and destroy() works after it', [], async () => {
        await withFresh(async session => {
          await within(session.stop(), SETTLE_TIMEOUT, 'stop()');
          await within(session.stop(), SETTLE_TIMEOUT, 'a second stop()');
          await within(session.destroy(), SETTLE_TIMEOUT, 'destroy() after stop()');
        });
      });

      check('destroy() is idempotent', [], async () => {
        await withFresh(async session => {
          await within(session.destroy(), SETTLE_TIMEOUT, 'destroy()');
          await within(session.destroy(), SETTLE_TIMEOUT, 'a second destroy()');
        });
      });

      check('stop() ends running processes', ['lifecycle'], async () => {
        await withFresh(async session => {
          const child = await session.spawn({ command: 'sleep 1000' });
          const drained = drain(child);
          await within(session.stop(), SETTLE_TIMEOUT, 'stop()');
          await settle(child.wait(), SETTLE_TIMEOUT, 'wait() after stop()');
          await settle(drained, SETTLE_TIMEOUT, 'stdout and stderr to end after stop()');
        });
      });

      check('calls after destroy() reject instead of hanging', ['lifecycle'], async () => {
        await withFresh(async session => {
          const path = posix.join(session.defaultWorkingDirectory, 'after-destroy.txt');
          await within(session.destroy(), SETTLE_TIMEOUT, 'destroy()');
          await expectRejection(() => session.run({ command: 'true' }), 'run() after destroy()');
          await expectRejection(() => session.spawn({ command: 'true' }), 'spawn() after destroy()');
          await expectRejection(() => session.readTextFile({ path }), 'readTextFile() after destroy()');
          await expectRejection(
            () => session.writeTextFile({ path, content: 'x' }),
            'writeTextFile() after destroy()',
          );
        });
      });
    });
  });
}

function validateSkips(
  skip: Partial<Record<ConformanceCapability, string>>,
): Partial<Record<string, string>> {
  for (const [capability, reason] of Object.entries(skip)) {
    if (!(capability in conformanceCapabilities)) {
      throw new Error(
        `Unknown conformance capability "${capability}" in skip; use one of: ${Object.keys(conformanceCapabilities).join(', ')}.`,
      );
    }
    if (typeof reason !== 'string' || reason.trim() === '') {
      throw new Error(`skip.${capability} needs a reason saying why the sandbox lacks it.`);
    }
  }
  return skip;
}

interface SharedSession {
  readonly session: Session;
  /** A fresh absolute path under this block's scratch directory in defaultWorkingDirectory. */
  path(label: string): string;
}

/** One session for a describe block, destroyed after it; tests keep apart through unique paths. */
function useSharedSession(create: ConformanceOptions['create']): SharedSession {
  let session: Session | undefined;
  let root = '';
  beforeAll(async () => {
    session = await create();
    root = posix.join(session.defaultWorkingDirectory, `conformance-${randomUUID().slice(0, 8)}`);
  }, HOOK_TIMEOUT);
  afterAll(async () => {
    const current = session;
    session = undefined;
    if (current === undefined) return;
    try {
      // A sandbox whose destroy() keeps its files should not collect the suite's litter.
      await settle(
        current.run({ command: 'rm -rf -- "$ROOT"', env: { ROOT: root } }),
        SETTLE_TIMEOUT,
        'cleanup',
      );
    } finally {
      await within(current.destroy(), SETTLE_TIMEOUT, 'destroy()');
    }
  }, HOOK_TIMEOUT);
  return {
    get session() {
      if (session === undefined) throw new Error('No session: create() failed in beforeAll.');
      return session;
    },
    path: label => posix.join(root, `${label}-${randomUUID().slice(0, 8)}`),
  };
}

async function withFreshSession(
  create: ConformanceOptions['create'],
  fn: (session: Session) => Promise<void>,
): Promise<void> {
  const session = await create();
  try {
    await fn(session);
  } finally {
    await within(session.destroy(), SETTLE_TIMEOUT, 'destroy()');
  }
}

/** Settles `promise`, or fails with a message naming `what` if it takes longer than `ms`. */
async function settle<T>(
  promise: PromiseLike<T>,
  ms: number,
  what: string,
): Promise<PromiseSettledResult<T>> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms);
  });
  try {
    const [outcome] = await Promise.race([Promise.allSettled([promise]), timeout]);
    return outcome!;
  } finally {
    clearTimeout(timer);
  }
}

async function within<T>(promise: PromiseLike<T>, ms: number, what: string): Promise<T> {
  const outcome = await settle(promise, ms, what);
  if (outcome.status === 'rejected') throw outcome.reason;
  return outcome.value;
}

/** Calls `fn` (a synchronous throw counts as a rejection) and returns what it rejected with. */
async function expectRejection(fn: () => PromiseLike<unknown>, what: string): Promise<unknown> {
  const outcome = await settle(new Promise(resolve => resolve(fn())), SETTLE_TIMEOUT, what);
  if (outcome.status === 'fulfilled') throw new Error(`${what} resolved, but it should reject`);
  return outcome.reason;
}

async function waitUntil(condition: () => Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${ms} ms waiting for ${what}`);
    await new Promise(resolve => setTimeout(resolve, 50));
  }
}

function waitForFile(session: Session, path: string): Promise<void> {
  return waitUntil(async () => (await session.readBinaryFile({ path })) !== null, `${path} to exist`);
}

async function waitForPid(session: Session, pidFile: string): Promise<string> {
  let pid = '';
  await waitUntil(async () => {
    pid = ((await session.readTextFile({ path: pidFile })) ?? '').trim();
    return /^\d+$/.test(pid);
  }, `a pid in ${pidFile}`);
  return pid;
}

// `kill -0` also succeeds on a zombie, which is dead for our purposes; /proc tells them apart on Linux.
const IS_ALIVE = `kill -0 "$PID" 2>/dev/null || exit 1
if [ -r "/proc/$PID/stat" ]; then
  state=$(sed 's/.*) //' "/proc/$PID/stat" | cut -d' ' -f1)
  [ "$state" != Z ] && [ "$state" != X ] || exit 1
fi`;

async function isAlive(session: Session, pid: string): Promise<boolean> {
  return (await session.run({ command: IS_ALIVE, env: { PID: pid } })).exitCode === 0;
}

async function readAll(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

async function readText(stream: ReadableStream<Uint8Array>): Promise<string> {
  return new TextDecoder().decode(await readAll(stream));
}

/** Reads both streams to their end, so a process never blocks on a full pipe. */
async function drain(child: {
  stdout: ReadableStream<Uint8Array>;
  stderr: ReadableStream<Uint8Array>;
}): Promise<void> {
  await Promise.all([readAll(child.stdout), readAll(child.stderr)]);
}

function chunkedStream(bytes: Uint8Array, sizes: readonly number[]): ReadableStream<Uint8Array> {
  let offset = 0;
  let turn = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.byteLength) {
        controller.close();
        return;
      }
      const size = sizes[turn++ % sizes.length]!;
      controller.enqueue(bytes.slice(offset, offset + size));
      offset += size;
    },
  });
}

function isPromiseLike(value: unknown): boolean {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/**
 * An HTTP server that answers `<REPLY> <path+query>`, and a minimal WebSocket endpoint that sends the
 * same as one text frame after the handshake (enough to prove upgrades pass through the forwarding).
 */
const SERVER_SCRIPT = `
const http = require('node:http');
const crypto = require('node:crypto');
const answer = (req) => process.env.REPLY + ' ' + req.url;
const server = http.createServer((req, res) => res.end(answer(req)));
server.on('upgrade', (req, socket) => {
  const accept = crypto.createHash('sha1')
    .update(req.headers['sec-websocket-key'] + '258EAFA5-E914-47DA-95CA-C5AB0DC85B11').digest('base64');
  socket.write('HTTP/1.1 101 Switching Protocols\\r\\nUpgrade: websocket\\r\\nConnection: Upgrade\\r\\n' +
    'Sec-WebSocket-Accept: ' + accept + '\\r\\n\\r\\n');
  const payload = Buffer.from(answer(req));
  socket.write(Buffer.concat([Buffer.from([0x81, payload.length]), payload]));
  socket.on('data', () => socket.destroy());
  socket.on('error', () => {});
});
server.listen(Number(process.env.PORT), '0.0.0.0');
`;

/** Fetches `url` until the server behind the forwarded port answers. */
async function waitForHttp(url: URL, headers?: Readonly<Record<string, string>>): Promise<string> {
  const deadline = Date.now() + SETTLE_TIMEOUT;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url, { headers: { ...headers }, signal: AbortSignal.timeout(5_000) });
      const body = await response.text();
      if (response.ok) return body;
      last = `HTTP ${response.status}: ${body}`;
    } catch (error) {
      last = error;
    }
    await new Promise(resolve => setTimeout(resolve, 100));
  }
  throw new Error(`${url.href} did not answer within ${SETTLE_TIMEOUT} ms; last: ${String(last)}`);
}

/** Opens a WebSocket and resolves with the first message the server sends. */
function webSocketMessage(url: string, headers?: Readonly<Record<string, string>>): Promise<string> {
  const received = new Promise<string>((resolve, reject) => {
    // Node's WebSocket (undici) takes `{ headers }` as its second argument; the DOM type does not say so.
    const socket =
      headers === undefined ? new WebSocket(url) : new WebSocket(url, { headers } as unknown as string[]);
    socket.onmessage = event => {
      resolve(String(event.data));
      socket.close();
    };
    socket.onerror = () => reject(new Error(`WebSocket to ${url} failed`));
    socket.onclose = () => reject(new Error(`WebSocket to ${url} closed before a message`));
  });
  return within(received, SETTLE_TIMEOUT, `a message over the WebSocket to ${url}`);
}
