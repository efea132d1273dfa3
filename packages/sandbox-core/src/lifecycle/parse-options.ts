/**
 * Checks a package's options against its schema at runtime. A caller in plain JavaScript, or one with
 * a cast, gets a SandboxOptionsError that names the option and what is wrong with it, before anything
 * is created.
 */
import type { z } from 'zod';
import { SandboxOptionsError } from '../errors.js';
import { checkSandboxId } from './sandbox-id.js';

export function parseOptions<T extends { sandboxId?: string }>(
  schema: z.ZodType<T>,
  options: unknown,
  what: string,
): T {
  const parsed = schema.safeParse(options ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.join('.') || '(options)';
    const message =
      issue.code === 'unrecognized_keys' ? `unknown option ${issue.keys.join(', ')}` : issue.message;
    throw new SandboxOptionsError(`Invalid ${what} option ${where}: ${message}`);
  }
  if (parsed.data.sandboxId !== undefined) checkSandboxId(parsed.data.sandboxId);
  return parsed.data;
}
