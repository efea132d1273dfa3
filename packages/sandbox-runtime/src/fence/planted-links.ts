import { lstat, mkdir, rm } from 'node:fs/promises';

import { SrtError } from '../srt-error.js';
import type { SandboxLayout } from './layout.js';

/*
 * bwrap resolves the source of a bind on the host. The sandbox may write its own directory, so it can
 * swap `sandbox/tmp` (the source of its /tmp) or `sandbox/home` for a symlink to any host directory;
 * the next start would then bind that directory, writable, into the sandbox. So before each start,
 * what the sandbox may have replaced is put back as a plain directory (its content was the
 * sandbox's own and is gone with the link), and what it cannot replace is checked.
 */

/** Makes the sandbox-writable directories of `layout` real directories again; refuses a planted link above them. */
export async function removePlantedLinks(layout: SandboxLayout): Promise<string[]> {
  for (const path of [layout.sandboxDir, layout.writableDir, layout.supervisorDir]) {
    const stat = await lstat(path);
    if (!stat.isDirectory()) {
      throw new SrtError(
        `${path} is not a directory (a symbolic link?): the sandbox's directory was tampered with. ` +
          'Destroy the sandbox.',
        'refused',
      );
    }
  }
  const repaired: string[] = [];
  for (const path of [layout.home, layout.tmp, layout.workspace]) {
    const stat = await lstat(path).catch(() => undefined);
    if (stat?.isDirectory()) continue;
    if (stat) {
      await rm(path, { force: true }); // the link itself (or a file), never what it points to
      repaired.push(path);
    }
    await mkdir(path, { mode: 0o700 });
  }
  return repaired;
}
