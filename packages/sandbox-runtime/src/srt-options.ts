/**
 * The options of `createSrtNetworkSandboxSession`, and what of them is saved in `sandbox.json` to be
 * applied again on resume. Checked at runtime with a schema: a wrong type or a relative path is a
 * clear SandboxOptionsError naming the option, never a sandbox with rules the caller did not mean.
 */
import { parseOptions, SandboxOptionsError } from '@internal/sandbox-core';
import { isAbsolute } from 'node:path';
import { z } from 'zod';
import type { SrtRuntimeSettings } from './fence/runtime-settings.js';
import type { SandboxTemplate } from './template/sandbox-template.js';

export interface SrtProgressEvent {
  phase: 'starting' | 'setup' | 'template' | 'ready';
  message: string;
}

export interface SrtSandboxOptions {
  /** Names the sandbox (its directory); resume it later by this id. Default: a new UUID. */
  sandboxId?: string;
  /** Where sandboxes live. Default: `~/.ai-sdk-sandbox-runtime`. */
  directory?: string;
  /** The directory the agent works on, read-write. Default: `sandbox/workspace` of its own directory. */
  workspace?: string;
  /** Directories the sandbox may read but not write, even under a hidden home. */
  readOnlyWorkspaces?: string[];
  /** Make the user's home an empty directory inside (default true). */
  hideHome?: boolean;
  /** Paths re-opened for reading under a hidden home. */
  allowRead?: string[];
  /** Paths hidden from the sandbox, on top of the service sockets always hidden. */
  denyRead?: string[];
  /** Paths kept read-only inside writable ones (`.git/hooks`, say). */
  denyWrite?: string[];
  /** Hosts the sandbox may reach, in srt's syntax. Default: DEFAULT_ALLOWED_DOMAINS. */
  allowedDomains?: string[];
  /** Ports inside the sandbox the harness may reach (the first is the bridge's). */
  ports?: number[];
  /** Variables for every command (adapters that cannot pass env per session rely on this). */
  env?: Record<string, string>;
  /** Commands run once at creation, before the template. */
  setup?: string[];
  /** Prepared at creation, before the sandbox is handed over: usually a harness's bootstrap. */
  template?: SandboxTemplate;
  /**
   * Keep what a template prepared, per identity, and give later sandboxes a copy instead of preparing
   * again (default true). The cache lives in `<directory>/.templates/`.
   */
  templateCache?: boolean;
  /** Keep real credentials out of the sandbox (default true). */
  brokerCredentials?: boolean;
  /** Credential variables beyond the known ones, with the host each may be sent to. */
  credentialVariables?: Record<string, { host: string }>;
  /** srt's process-wide settings. */
  runtime?: SrtRuntimeSettings;
  /** Told about the steps of a creation that can take seconds (setup, template). */
  onProgress?: (event: SrtProgressEvent) => void;
  abortSignal?: AbortSignal;
}

export interface SrtSandboxResumeOptions {
  sandboxId: string;
  directory?: string;
  runtime?: SrtRuntimeSettings;
  onProgress?: (event: SrtProgressEvent) => void;
  abortSignal?: AbortSignal;
}

const absolute = (name: string) =>
  z.string().refine(isAbsolute, { message: `${name} must be an absolute path` });
const absoluteList = (name: string) => z.array(absolute(name));
const port = z
  .number()
  .int({ message: 'ports must be whole numbers' })
  .min(1, { message: 'ports are 1 to 65535' })
  .max(65535, { message: 'ports are 1 to 65535' });
const portList = z
  .array(port)
  .refine(list => new Set(list).size === list.length, { message: 'ports must not repeat' });
const envSchema = z.record(
  z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { message: 'variable names are letters, digits and _' }),
  z.string(),
);
const runtimeSchema = z
  .object({
    bwrapPath: z.string().optional(),
    socatPath: z.string().optional(),
    ripgrepPath: z.string().optional(),
    allowAllUnixSockets: z.boolean().optional(),
    enableWeakerNestedSandbox: z.boolean().optional(),
  })
  .strict();

const optionsSchema = z
  .object({
    sandboxId: z.string().optional(),
    directory: z.string().min(1).optional(),
    workspace: absolute('workspace').optional(),
    readOnlyWorkspaces: absoluteList('readOnlyWorkspaces').optional(),
    hideHome: z.boolean().optional(),
    allowRead: z.array(z.string().min(1)).optional(),
    denyRead: z.array(z.string().min(1)).optional(),
    denyWrite: z.array(z.string().min(1)).optional(),
    allowedDomains: z.array(z.string()).optional(),
    ports: portList.optional(),
    env: envSchema.optional(),
    setup: z.array(z.string()).optional(),
    template: z
      .object({
        identity: z.string().min(1),
        prepare: z.custom<SandboxTemplate['prepare']>(v => typeof v === 'function'),
      })
      .passthrough()
      .optional(),
    templateCache: z.boolean().optional(),
    brokerCredentials: z.boolean().optional(),
    credentialVariables: z.record(z.string(), z.object({ host: z.string().min(1) })).optional(),
    runtime: runtimeSchema.optional(),
    onProgress: z.custom<(event: SrtProgressEvent) => void>(v => typeof v === 'function').optional(),
    abortSignal: z.instanceof(AbortSignal).optional(),
  })
  .strict();

export function checkSrtOptions(options: unknown): SrtSandboxOptions {
  const checked = parseOptions(optionsSchema, options, 'srt sandbox') as SrtSandboxOptions;
  for (const text of [
    ...(checked.allowRead ?? []),
    ...(checked.denyRead ?? []),
    ...(checked.denyWrite ?? []),
  ]) {
    if (text.includes('\0'))
      throw new SandboxOptionsError(`Paths may not contain NUL bytes: ${JSON.stringify(text)}`);
  }
  return checked;
}

export function checkPorts(ports: unknown, name = 'ports'): number[] {
  const parsed = portList.safeParse(ports);
  if (!parsed.success) {
    throw new SandboxOptionsError(
      `Invalid ${name} ${JSON.stringify(ports)}: ${parsed.error.issues[0]?.message}`,
    );
  }
  return parsed.data;
}

/** What `sandbox.json` keeps: the rules, so a resumed sandbox has exactly the ones it was created with. */
export const srtRecordSchema = z.object({
  version: z.literal(1),
  kind: z.literal('srt'),
  sandboxId: z.string(),
  createdAt: z.string(),
  workspace: absolute('workspace').optional(),
  readOnlyWorkspaces: absoluteList('readOnlyWorkspaces'),
  hideHome: z.boolean(),
  allowRead: z.array(z.string()),
  denyRead: z.array(z.string()),
  denyWrite: z.array(z.string()),
  allowedDomains: z.array(z.string()),
  ports: portList,
  env: envSchema,
  brokerCredentials: z.boolean(),
  credentialVariables: z.record(z.string(), z.object({ host: z.string() })),
  templateIdentity: z.string().optional(),
});
export type SrtRecord = z.infer<typeof srtRecordSchema>;
