import { posix } from 'node:path';
import { describe, expect } from 'vitest';
import { expectPreAbortedCallNotRun } from './aborts.js';
import { waitForExit, waitForFile, waitForPid } from './processes.js';
import { SETTLE_TIMEOUT, expectRejection, settle, within } from './settle.js';
import { drain } from './streams.js';
import type { ConformanceSuite, SharedSession } from './suite.js';

/** run(), the command shapes the harness sends, and exits by signal. */
export function describeCommands(suite: ConformanceSuite): void {
  describeRun(suite);
  describeHarnessCommandShapes(suite);
  describeSignals(suite);
}

function describeRun({ check, sharedSession }: ConformanceSuite): void {
  describe('run', () => {
    const ctx = sharedSession();

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
      const dir = await ctx.directory('work dir');
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
      await expectPreAbortedCallNotRun(ctx, 'run', 'pre-aborted');
    });

    check('an abort during a long command ends it promptly', [], async () => {
      const { running, abort } = await startAbortableRun(ctx);
      abort();
      await settle(running, SETTLE_TIMEOUT, 'run() after its signal aborted');
    });

    check('an abort during a long command rejects', ['abortRejects'], async () => {
      const { running, abort } = await startAbortableRun(ctx);
      abort();
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
      await waitForExit(ctx.session, pid, `pid ${pid} to end after the abort`);
    });
  });
}

/** Starts a 30 s run() under an abort signal and returns once the command is surely running. */
async function startAbortableRun(ctx: SharedSession) {
  const started = ctx.path('abort-started');
  const controller = new AbortController();
  const running = ctx.session.run({
    command: 'touch "$STARTED"; sleep 30',
    env: { STARTED: started },
    abortSignal: controller.signal,
  });
  await waitForFile(ctx.session, started);
  return { running, abort: () => controller.abort() };
}

function describeHarnessCommandShapes({ check, sharedSession }: ConformanceSuite): void {
  describe('command shapes the harness uses', () => {
    const ctx = sharedSession();

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

    check('a file written from the host can be moved with mv -f (how skills are installed)', [], async () => {
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
    });
  });
}

function describeSignals({ check, sharedSession }: ConformanceSuite): void {
  describe('signals', () => {
    const ctx = sharedSession();

    check('a command killed by a signal reports 128+n', ['realProcesses'], async () => {
      expect((await ctx.session.run({ command: 'kill -TERM $$' })).exitCode).toBe(143);
      expect((await ctx.session.run({ command: 'kill -KILL $$' })).exitCode).toBe(137);
      const spawned = await ctx.session.spawn({ command: 'kill -TERM $$' });
      const drained = drain(spawned);
      expect(await within(spawned.wait(), SETTLE_TIMEOUT, 'wait()')).toEqual({ exitCode: 143 });
      await drained;
    });
  });
}
