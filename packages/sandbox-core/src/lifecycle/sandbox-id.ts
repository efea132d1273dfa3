/**
 * Sandbox ids name directories on disk, so they are checked before any path is built from them: no
 * separators, no `..`, nothing a shell or a file system would read specially.
 */
import { randomUUID } from 'node:crypto';
import { SandboxOptionsError } from '../errors.js';

const SANDBOX_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export function checkSandboxId(id: unknown): string {
  if (typeof id !== 'string' || !SANDBOX_ID.test(id) || id.includes('..') || id.endsWith('.')) {
    throw new SandboxOptionsError(
      `Invalid sandboxId ${JSON.stringify(id)}: use 1 to 128 letters, digits, '.', '_' or '-', ` +
        "starting with a letter or digit, without '..' and not ending with '.'.",
    );
  }
  return id;
}

export function newSandboxId(prefix: string): string {
  return `${prefix}-${randomUUID()}`;
}
