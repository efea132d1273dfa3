/**
 * `sandbox.json`: what a sandbox was created with, read again when it is resumed. Written atomically
 * (temporary file, then rename) so a crash never leaves half a record, and validated on read so a
 * hand-edited file gives a clear error instead of a sandbox with surprising rules.
 */
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { z } from 'zod';
import { SandboxConflictError, SandboxNotFoundError, SandboxStateError } from '../errors.js';

export const RECORD_FILE = 'sandbox.json';

/**
 * Claims `directory` for a new sandbox. `mkdir` without `recursive` fails when the directory exists,
 * which makes it the atomic test-and-set two processes creating the same id need: one wins.
 */
export async function claimSandboxDirectory(directory: string, sandboxId: string): Promise<void> {
  try {
    await mkdir(directory);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST' && (await isHalfMade(directory))) {
      // A creation that crashed between claiming the directory and saving the record: nothing in it
      // can be resumed, so it is cleared and claimed again.
      await rm(directory, { recursive: true, force: true });
      return claimSandboxDirectory(directory, sandboxId);
    }
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new SandboxConflictError(
        `A sandbox named "${sandboxId}" already exists in ${directory}. Resume it, destroy it, or pick another sandboxId.`,
        sandboxId,
      );
    }
    throw error;
  }
}

/** How old a directory without a record must be before it counts as a crashed creation. */
const HALF_MADE_AFTER_MS = 60_000;

async function isHalfMade(directory: string): Promise<boolean> {
  const [record, claimed] = await Promise.all([
    stat(join(directory, RECORD_FILE)).catch(() => undefined),
    stat(directory).catch(() => undefined),
  ]);
  // Young directories are left alone: another process may be between its claim and its record.
  return !record && claimed !== undefined && Date.now() - claimed.mtimeMs > HALF_MADE_AFTER_MS;
}

export async function writeRecord(directory: string, record: unknown): Promise<void> {
  const file = join(directory, RECORD_FILE);
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
  await rename(temporary, file);
}

export async function readRecord<T>(directory: string, sandboxId: string, schema: z.ZodType<T>): Promise<T> {
  const file = join(directory, RECORD_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new SandboxNotFoundError(`No sandbox named "${sandboxId}" (looked for ${file}).`, sandboxId);
    }
    throw new SandboxStateError(`Cannot read ${file}: ${(error as Error).message}`, file, { cause: error });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new SandboxStateError(
      `${file} is not valid JSON (${(error as Error).message}). Restore it or destroy the sandbox.`,
      file,
      { cause: error },
    );
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new SandboxStateError(
      `${file} does not describe a sandbox: ${issue?.path.join('.') || 'the record'}: ${issue?.message}. ` +
        'Restore it or destroy the sandbox.',
      file,
    );
  }
  return parsed.data;
}
