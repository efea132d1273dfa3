import type { Session } from './suite.js';
import { waitUntil } from './settle.js';

export function waitForFile(session: Session, path: string): Promise<void> {
  return waitUntil(async () => (await session.readBinaryFile({ path })) !== null, `${path} to exist`);
}

export async function waitForPid(session: Session, pidFile: string): Promise<string> {
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

export async function isAlive(session: Session, pid: string): Promise<boolean> {
  return (await session.run({ command: IS_ALIVE, env: { PID: pid } })).exitCode === 0;
}

/** Waits until process `pid` has ended; `what` names the wait in the timeout message. */
export function waitForExit(session: Session, pid: string, what: string): Promise<void> {
  return waitUntil(async () => !(await isAlive(session, pid)), what);
}
