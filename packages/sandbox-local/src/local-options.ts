/**
 * The options of the local sandbox, checked at runtime: callers in plain JavaScript (or with a cast)
 * get a clear error naming the option instead of a failure further down.
 */
import { parseOptions } from '@internal/sandbox-core';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { z } from 'zod';

export interface LocalSandboxOptions {
  /** Names the sandbox so it can be resumed later, from this process or another. Default: a new UUID. */
  sandboxId?: string;
  /** The working directory commands start in. Default: `workspace/` inside the sandbox's own directory. */
  workspace?: string;
  /** Where sandboxes keep their state. Default: `~/.ai-sdk-sandbox-local`. */
  directory?: string;
  /** How many host ports to lease for this sandbox (bridges listen on them). Default: 1. */
  portCount?: number;
  /** Variables added to every command's environment, under each command's own `env`. */
  env?: Record<string, string>;
  abortSignal?: AbortSignal;
}

export interface LocalSandboxResumeOptions {
  sandboxId: string;
  directory?: string;
  abortSignal?: AbortSignal;
}

export const DEFAULT_LOCAL_DIRECTORY = join(homedir(), '.ai-sdk-sandbox-local');

const absolutePath = (name: string) =>
  z.string().refine(isAbsolute, { message: `${name} must be an absolute path` });

const optionsSchema = z.object({
  sandboxId: z.string().optional(),
  workspace: absolutePath('workspace').optional(),
  directory: absolutePath('directory').optional(),
  portCount: z.number().int().min(0).max(64).optional(),
  env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), z.string()).optional(),
  abortSignal: z.instanceof(AbortSignal).optional(),
});

export function checkLocalOptions(options: unknown): LocalSandboxOptions {
  return parseOptions(optionsSchema, options, 'local sandbox');
}

/** What `sandbox.json` holds for a local sandbox. */
export const localRecordSchema = z.object({
  version: z.literal(1),
  kind: z.literal('local'),
  sandboxId: z.string(),
  createdAt: z.string(),
  workspace: absolutePath('workspace'),
  portCount: z.number().int().min(0).max(64),
  env: z.record(z.string(), z.string()),
  /** The ports it had last, asked for again on resume so a reattaching client finds its bridge. */
  ports: z.array(z.number().int().min(1).max(65535)),
});
export type LocalRecord = z.infer<typeof localRecordSchema>;
