import { readdirSync } from 'node:fs';

/*
 * A descriptor this process inherited without close-on-exec (from a service manager, a CI runner,
 * the shell that started it) survives every exec: bash, bwrap, srt's wrappers and the supervisor
 * pass it on, and any command in the sandbox can read or write it through /proc/self/fd. Node opens
 * its own descriptors close-on-exec, but cannot mark inherited ones, so the shell that starts srt's
 * command closes every descriptor above stderr before it execs bwrap.
 */

/** The descriptors this process has open above stderr (all of them: closing a close-on-exec one is harmless). */
export function openDescriptorsAboveStderr(list: () => string[] = defaultList): number[] {
  return list()
    .map(Number)
    .filter(fd => Number.isInteger(fd) && fd > 2)
    .sort((a, b) => a - b);
}

/**
 * `command` (one simple command, srt's bwrap line) run by `exec` with `fds` closed. `exec` keeps bwrap
 * in the shell's place, so its --die-with-parent still follows this process.
 */
export function withDescriptorsClosed(command: string, fds: readonly number[]): string {
  const closes = fds.map(fd => `${fd}>&-`).join(' ');
  return closes ? `exec ${command} ${closes}` : `exec ${command}`;
}

function defaultList(): string[] {
  for (const dir of ['/proc/self/fd', '/dev/fd']) {
    try {
      return readdirSync(dir);
    } catch {
      // not on this platform
    }
  }
  return [];
}
