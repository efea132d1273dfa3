// The supervisor's stdin and stdout are the host's only link to the sandbox, and the supervisor
// runs inside it: a process of the sandbox can try to write that link, read it, or end the
// supervisor. The host must stay correct: a typed error for that sandbox, the others untouched.
import { afterAll, beforeAll, expect } from 'vitest';

import { SandboxError, SandboxStoppedError, SupervisorLinkError } from '@internal/sandbox-core';
import type { SrtNetworkSandboxSession } from '../sandbox/srt-view.js';
import { securityCategory } from './record.js';
import { brief, SandboxPool, scratchDirectory } from './support.js';

const { attack } = securityCategory('supervisor-channel');

let scratch: Awaited<ReturnType<typeof scratchDirectory>>;
let pool: SandboxPool;
/** A sandbox no attack touches: it must keep working through all of them. */
let bystander: SrtNetworkSandboxSession;

beforeAll(async () => {
  scratch = await scratchDirectory('channel');
  pool = new SandboxPool(scratch.path);
  bystander = await pool.create();
});
afterAll(async () => {
  await pool.destroyAll();
  await scratch.remove();
});

async function bystanderWorks(): Promise<void> {
  const result = await bystander.run({ command: 'echo alive' });
  expect(result.stdout).toBe('alive\n');
}

/** Resolves with what a call did within `ms`: its value, its error, or 'hung'. */
async function settle<T>(
  call: PromiseLike<T>,
  ms = 20_000,
): Promise<{ value?: T; error?: unknown; hung?: true }> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<{ hung: true }>(
    resolve => (timer = setTimeout(() => resolve({ hung: true }), ms)),
  );
  try {
    return await Promise.race([
      Promise.resolve(call).then(
        value => ({ value }),
        (error: unknown) => ({ error }),
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

const typed = (error: unknown) =>
  error instanceof SupervisorLinkError || error instanceof SandboxStoppedError;

/** Python that duplicates the supervisor's descriptor `fd` (pidfd_getfd) and runs `body` with it as `fd`. */
const withSupervisorFd = (fd: number, body: string) => `/usr/bin/python3 - "$PPID" <<'PY'
import ctypes, os, struct, sys, time
libc = ctypes.CDLL(None, use_errno=True)
pidfd = os.pidfd_open(int(sys.argv[1]))  # the shell's parent: the supervisor
fd = libc.syscall(438, pidfd, ${fd}, 0)
if fd < 0:
    print('getfd-refused', os.strerror(ctypes.get_errno())); sys.exit(0)
print('getfd-ok', flush=True)
${body}
PY`;

attack("open the supervisor's stdout through /proc/<pid>/fd/1 and write to it", 'refused', async () => {
  const session = await pool.create();
  const result = await session.run({
    command:
      'echo junk > /proc/$PPID/fd/1; echo rc=$?; echo junk > /proc/$PPID/fd/0; cat /proc/$PPID/environ >/dev/null; echo rc=$?',
  });
  expect(result.stdout).toBe('rc=1\nrc=1\n');
  expect(await session.run({ command: 'echo still' })).toMatchObject({ stdout: 'still\n' });
  return brief(result.stderr);
});

attack(
  "write garbage into the supervisor's stdout (a duplicate of its descriptor, pidfd_getfd)",
  'typed error for that sandbox; the others unaffected; no crash',
  async () => {
    const session = await pool.create();
    const outcome = await settle(
      session.run({
        command: withSupervisorFd(
          1,
          `os.write(fd, b'\\x00\\x00\\x00\\x00\\x63' + b'\\x00' * 4 + b'garbage' * 100)\ntime.sleep(2)`,
        ),
      }),
    );
    expect(outcome.hung).toBeUndefined();
    const later = await settle(session.run({ command: 'true' }));
    if (outcome.error === undefined) {
      // The descriptor was refused: the command ran and reported it.
      expect(String(outcome.value && (outcome.value as { stdout: string }).stdout)).toContain(
        'getfd-refused',
      );
      await bystanderWorks();
      return 'pidfd_getfd refused';
    }
    expect(typed(outcome.error), String(outcome.error)).toBe(true);
    expect(typed(later.error), String(later.error)).toBe(true);
    await bystanderWorks();
    return `${(outcome.error as Error).name}: ${brief((outcome.error as Error).message, 80)}; then ${(later.error as Error).name}`;
  },
);

attack(
  "forge frames on the supervisor's stdout: an oversized header, data past the credit",
  'typed error (protocol); the host buffers nothing big',
  async () => {
    const session = await pool.create();
    const rss = process.memoryUsage().rss;
    const outcome = await settle(
      session.run({
        command: withSupervisorFd(
          1,
          // A DATA frame announcing 4 GiB, then the bytes of one.
          `os.write(fd, struct.pack('>IBI', 0xfffffff0, 4, 2) + b'A' * 65536)\ntime.sleep(2)`,
        ),
      }),
    );
    expect(outcome.hung).toBeUndefined();
    expect(typed(outcome.error), String(outcome.error ?? 'no error')).toBe(true);
    expect(process.memoryUsage().rss - rss).toBeLessThan(256 * 1024 * 1024);
    await bystanderWorks();
    return `${(outcome.error as Error).name}: ${brief((outcome.error as Error).message, 90)}`;
  },
);

attack(
  'freeze the supervisor (kill -STOP), then let the host stop the sandbox',
  'stop() and destroy() still end it; pending calls get a typed error',
  async () => {
    const session = await pool.create();
    const frozen = settle(session.run({ command: 'kill -STOP $PPID; sleep 1' }), 40_000);
    await new Promise(resolve => setTimeout(resolve, 500));
    const reading = settle(session.readTextFile({ path: 'x.txt' }), 40_000);
    const destroyed = await settle(session.destroy(), 30_000);
    expect(destroyed.hung, 'destroy() never returned for a frozen supervisor').toBeUndefined();
    const [run, read] = await Promise.all([frozen, reading]);
    expect(run.hung, 'a call stayed pending after destroy()').toBeUndefined();
    expect(typed(run.error), String(run.error)).toBe(true);
    expect(typed(read.error), String(read.error)).toBe(true);
    await bystanderWorks();
    return `destroy() returned; pending calls: ${(run.error as Error).name}`;
  },
  90_000,
);

attack(
  'kill -9 the supervisor from inside',
  'SupervisorLinkError / SandboxStoppedError; the others unaffected',
  async () => {
    const session = await pool.create();
    const sleeper = await session.spawn({ command: 'sleep 60' });
    const outcome = await settle(session.run({ command: 'kill -9 $PPID; sleep 5' }));
    expect(outcome.hung).toBeUndefined();
    expect(typed(outcome.error), String(outcome.error)).toBe(true);
    const waited = await settle(sleeper.wait());
    expect(typed(waited.error), String(waited.error)).toBe(true);
    const later = await settle(session.readTextFile({ path: 'x' }));
    expect(later.error).toBeInstanceOf(SandboxStoppedError);
    await bystanderWorks();
    return `${(outcome.error as Error).name}, then ${(later.error as Error).name}`;
  },
);

attack(
  'kill every process it can see (kill -9 -1)',
  'typed error for that sandbox; the others unaffected',
  async () => {
    const session = await pool.create();
    const outcome = await settle(session.run({ command: 'kill -9 -1; sleep 5' }));
    expect(outcome.hung).toBeUndefined();
    if (outcome.error !== undefined) expect(typed(outcome.error), String(outcome.error)).toBe(true);
    await bystanderWorks();
    return outcome.error
      ? (outcome.error as Error).name
      : `exit ${(outcome.value as { exitCode: number }).exitCode}`;
  },
);

attack(
  'flood its own stdout far faster than the host reads',
  'flow control: the host stays bounded and gets all of it',
  async () => {
    const session = await pool.create();
    const child = await session.spawn({ command: 'head -c 209715200 /dev/zero' });
    const rss = process.memoryUsage().rss;
    let bytes = 0;
    let peak = 0;
    const reader = child.stdout.getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      if (bytes % (16 * 1024 * 1024) < value.byteLength) {
        peak = Math.max(peak, process.memoryUsage().rss - rss);
        await new Promise(resolve => setTimeout(resolve, 20)); // a slow consumer
      }
    }
    await child.wait();
    expect(bytes).toBe(209715200);
    expect(peak).toBeLessThan(256 * 1024 * 1024);
    return `200 MiB read, host RSS grew at most ${Math.round(peak / 1048576)} MiB`;
  },
);

attack(
  'signal the whole sandbox with a stop while a call streams',
  'SandboxError, never an untyped one',
  async () => {
    const session = await pool.create();
    const running = settle(session.run({ command: 'yes | head -c 100000000 >/dev/null; sleep 30' }));
    await new Promise(resolve => setTimeout(resolve, 300));
    await session.stop();
    const outcome = await running;
    expect(outcome.hung).toBeUndefined();
    expect(outcome.error === undefined || SandboxError.isInstance(outcome.error), String(outcome.error)).toBe(
      true,
    );
    await bystanderWorks();
    return outcome.error ? (outcome.error as Error).name : 'finished';
  },
);
