/**
 * The template cache: a template is prepared once per identity, and every later sandbox starts from a
 * copy of what it left, in milliseconds to a second instead of the minute a Claude Code bootstrap
 * takes through the proxy.
 *
 * What a template changes lives in the sandbox's home and its /tmp (the harness bootstraps into
 * /tmp/harness, which is the same path in every sandbox). Both are saved, and copied into each new
 * sandbox: copied, not linked, so that no sandbox can change another's files or the cache. Where the
 * file system can (Btrfs, XFS, APFS), the copy is a reflink and costs next to nothing; elsewhere it is
 * a plain copy. A new identity (another adapter version, another recipe) prepares afresh.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { lstat, mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { SandboxLayout } from '../fence/layout.js';

const run = promisify(execFile);
const COMPLETE = '.complete';

/** An identity names a directory: anything beyond a safe file name is hashed away by the caller. */
const SAFE_IDENTITY = /^[A-Za-z0-9._-]{1,128}$/;

export class TemplateCache {
  constructor(private readonly root: string) {}

  static for(layout: SandboxLayout): TemplateCache {
    return new TemplateCache(join(layout.directory, '.templates'));
  }

  private entry(identity: string): string {
    return join(
      this.root,
      SAFE_IDENTITY.test(identity) ? identity : Buffer.from(identity).toString('base64url').slice(0, 128),
    );
  }

  /** Copies a cached template into the new sandbox; false when there is none for this identity. */
  async restore(identity: string, layout: SandboxLayout): Promise<boolean> {
    const entry = this.entry(identity);
    if (!(await exists(join(entry, COMPLETE)))) return false;
    await copyContents(join(entry, 'home'), layout.home);
    await copyContents(join(entry, 'tmp'), layout.tmp);
    return true;
  }

  /**
   * Saves what a freshly prepared sandbox holds. Written aside and renamed into place, so a cache
   * entry is either whole or absent; when two sandboxes prepare the same identity at once, the first
   * to finish is kept.
   */
  async save(identity: string, layout: SandboxLayout): Promise<void> {
    const entry = this.entry(identity);
    if (await exists(join(entry, COMPLETE))) return;
    // The sandbox could have swapped its home or /tmp for a link to a host directory while the
    // template ran; copying through it would put host files in every later sandbox.
    for (const path of [layout.home, layout.tmp]) {
      if (!(await lstat(path)).isDirectory()) return;
    }
    await mkdir(this.root, { recursive: true, mode: 0o700 });
    const staging = `${entry}.${randomBytes(6).toString('hex')}.partial`;
    try {
      await mkdir(join(staging, 'home'), { recursive: true });
      await mkdir(join(staging, 'tmp'), { recursive: true });
      await copyContents(layout.home, join(staging, 'home'));
      await copyContents(layout.tmp, join(staging, 'tmp'));
      await writeFile(join(staging, COMPLETE), `${new Date().toISOString()}\n`);
      await rename(staging, entry).catch(async error => {
        if (!['EEXIST', 'ENOTEMPTY'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
      });
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
  }

  /** Removes every cached template (or one identity's). */
  async clear(identity?: string): Promise<void> {
    await rm(identity ? this.entry(identity) : this.root, { recursive: true, force: true });
  }
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** `cp -a src/. dst/`: keeps modes, times, symlinks and the hard links inside the tree (pnpm's store). */
async function copyContents(source: string, target: string): Promise<void> {
  await mkdir(target, { recursive: true });
  const reflink =
    process.platform === 'linux' ? ['--reflink=auto'] : process.platform === 'darwin' ? ['-c'] : [];
  await run('cp', ['-a', ...reflink, `${source}/.`, `${target}/`], { maxBuffer: 1024 * 1024 });
}
