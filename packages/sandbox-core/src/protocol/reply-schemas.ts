/**
 * Schemas for what the host reads from the supervisor. The supervisor runs inside the sandbox, next to
 * the agent's code, so its replies are validated like any other untrusted input. The supervisor
 * itself does not import this file: what the host sends it is trusted.
 */
import { z } from 'zod';
import { MAX_FRAME_PAYLOAD } from './frame.js';

const boundedString = (max: number) => z.string().max(max);

export const replySchema = z.union([
  z.object({ ok: z.literal(true), value: z.unknown().optional() }),
  z.object({
    ok: z.literal(false),
    error: z.object({ code: boundedString(64), message: boundedString(4096) }),
  }),
]);

export const helloValueSchema = z.object({
  protocol: z.number().int(),
  pid: z.number().int().nonnegative(),
  platform: boundedString(64),
  defaultWorkingDirectory: boundedString(4096),
});

export const spawnValueSchema = z.object({ pid: z.number().int().nonnegative() });

export const readFileValueSchema = z.object({
  found: z.boolean(),
  size: z.number().int().nonnegative().optional(),
});

export const killAllValueSchema = z.object({ killed: z.number().int().nonnegative() });

/** Exit codes are 0–255 from a normal exit or 128 + a signal number; anything else is a lie. */
export const callEventSchema = z.object({
  type: z.literal('exit'),
  exitCode: z
    .number()
    .int()
    .min(0)
    .max(255 + 128),
});

export const MAX_JSON_PAYLOAD = Math.min(MAX_FRAME_PAYLOAD, 64 * 1024);
