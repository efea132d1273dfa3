/**
 * File reads and writes for the host. They run here, inside the fence, so the kernel decides what the
 * sandbox may touch: a symlink the agent planted can only lead where the agent itself could go.
 *
 * Writes are atomic: bytes go to a temporary file beside the target, which replaces the target only
 * once complete, so a write cut short (supervisor killed, disk full) leaves the old content intact.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, realpath, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import type { SupervisorConfig } from '../protocol/messages.js';
import type { SupervisorWire } from './wire.js';

export function resolvePath(config: SupervisorConfig, path: string): string {
  return isAbsolute(path) ? path : resolve(config.defaultWorkingDirectory, path);
}

/** Sends the file on `stream`. Resolves with `found: false` for a missing file, throws other errors. */
export async function readFileTo(
  wire: SupervisorWire,
  path: string,
  stream: number,
  onHeader: (value: { found: boolean; size?: number }) => void,
): Promise<void> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return onHeader({ found: false });
    throw error;
  }
  try {
    const info = await handle.stat();
    if (info.isDirectory()) throw Object.assign(new Error(`${path} is a directory`), { code: 'EISDIR' });
    onHeader({ found: true, size: info.size });
    const source = createReadStream('', { fd: handle, autoClose: false, highWaterMark: 256 * 1024 });
    await wire.pump(stream, source);
    wire.end(stream);
  } finally {
    await handle.close();
  }
}

/** Writes what arrives on `stream` to `path`, atomically, creating parent directories. */
export async function writeFileFrom(wire: SupervisorWire, path: string, stream: number): Promise<void> {
  const target = await realpath(path).catch(() => path);
  await mkdir(dirname(target), { recursive: true });
  const temporary = join(dirname(target), `.${basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temporary, 'wx', 0o666);
  let complete = false;
  try {
    const finished = new Promise<void>((resolveDone, rejectDone) => {
      wire.openInbound(stream, {
        write: async chunk => {
          try {
            let written = 0;
            while (written < chunk.byteLength) {
              const { bytesWritten } = await handle.write(chunk, written, chunk.byteLength - written);
              written += bytesWritten;
            }
          } catch (error) {
            rejectDone(error); // keeps the real cause (ENOSPC, EIO) rather than a generic reset
            throw error;
          }
        },
        end: () => resolveDone(),
        reset: () =>
          rejectDone(Object.assign(new Error('the host abandoned the write'), { code: 'ECANCELED' })),
      });
    });
    await finished;
    const previous = await stat(target).catch(() => undefined);
    if (previous) await handle.chmod(previous.mode & 0o7777);
    await handle.close();
    await rename(temporary, target);
    complete = true;
  } finally {
    wire.closeInbound(stream);
    if (!complete) {
      await handle.close().catch(() => undefined);
      await unlink(temporary).catch(() => undefined);
    }
  }
}
