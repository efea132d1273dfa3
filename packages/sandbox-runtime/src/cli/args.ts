/**
 * Command-line arguments: node:util's parseArgs with the options every sandbox command shares, and
 * their translation into the library's options. Wrong arguments are SandboxOptionsError, which the
 * binary reports with exit code 2.
 */
import { SandboxOptionsError } from '@internal/sandbox-core';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { DEFAULT_ALLOWED_DOMAINS } from '../fence/default-allowed-domains.js';
import { defaultSandboxesDirectory, sandboxLayout } from '../fence/layout.js';
import type { SrtRuntimeSettings } from '../fence/runtime-settings.js';
import type { SrtSandboxOptions } from '../srt-options.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/** Options every command takes. */
export const COMMON_OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  directory: { type: 'string' },
  'allow-all-unix-sockets': { type: 'boolean' },
} as const satisfies Options;

/** The options of the commands that open a sandbox (run, shell). */
export const SANDBOX_OPTIONS = {
  ...COMMON_OPTIONS,
  workspace: { type: 'string' },
  'read-only': { type: 'string', multiple: true },
  'no-hide-home': { type: 'boolean' },
  'allow-read': { type: 'string', multiple: true },
  'deny-read': { type: 'string', multiple: true },
  'deny-write': { type: 'string', multiple: true },
  'allow-domain': { type: 'string', multiple: true },
  'no-default-domains': { type: 'boolean' },
  'sandbox-id': { type: 'string' },
  keep: { type: 'boolean' },
} as const satisfies Options;

/** The parsed values of a set of options, typed from its definition. */
export type ParsedValues<T extends Options> = {
  [K in keyof T]?: T[K] extends { multiple: true }
    ? T[K] extends { type: 'boolean' }
      ? boolean[]
      : string[]
    : T[K] extends { type: 'boolean' }
      ? boolean
      : string;
};

/**
 * Parses `argv` strictly. Words after `--` are returned as `rest`, untouched: they are a command
 * for the sandbox, whose own options must not be read as ours.
 */
export function parseCommandArgs<T extends Options>(
  command: string,
  argv: readonly string[],
  options: T,
  { positionals = false }: { positionals?: boolean } = {},
): { values: ParsedValues<T>; positionals: string[]; rest: string[] | undefined } {
  const separator = argv.indexOf('--');
  const ours = separator === -1 ? argv : argv.slice(0, separator);
  const rest = separator === -1 ? undefined : argv.slice(separator + 1);
  try {
    const parsed = parseArgs({ args: [...ours], options, allowPositionals: positionals, strict: true });
    return { values: parsed.values as ParsedValues<T>, positionals: parsed.positionals, rest };
  } catch (error) {
    // parseArgs throws TypeErrors with a code (ERR_PARSE_ARGS_UNKNOWN_OPTION…) and a clear message.
    const { message, code } = error as NodeJS.ErrnoException;
    const said =
      code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL'
        ? `${message.split('.')[0]}${command === 'run' ? ' (the command goes after --)' : ''}`
        : message.replace(/\.$/, '');
    throw new SandboxOptionsError(
      `${command}: ${said}. Run \`ai-sdk-sandbox-runtime ${command} --help\` for its options.`,
    );
  }
}

/** `~` and `~/x` as a shell reads them; anything else from `cwd`. */
export function resolveUserPath(path: string, cwd: string, home: string = homedir()): string {
  if (path === '~') return home;
  if (path.startsWith('~/')) return join(home, path.slice(2));
  return isAbsolute(path) ? path : resolve(cwd, path);
}

/** The directory sandboxes live in, resolved as the library resolves it. */
export function sandboxesDirectory(directory: string | undefined): string {
  return sandboxLayout('probe', directory ?? defaultSandboxesDirectory()).directory;
}

export function runtimeSettings(values: ParsedValues<typeof COMMON_OPTIONS>): SrtRuntimeSettings | undefined {
  // Without the flag the library reads SRT_ALLOW_ALL_UNIX_SOCKETS=1 itself.
  return values['allow-all-unix-sockets'] ? { allowAllUnixSockets: true } : undefined;
}

/** Which sandbox to open, and with which rules if it has to be created. */
export interface SandboxSpec {
  readonly sandboxId: string | undefined;
  readonly keep: boolean;
  readonly directory: string | undefined;
  readonly runtime: SrtRuntimeSettings | undefined;
  /** The rules of a new sandbox (a resumed one keeps those it was created with). */
  readonly rules: Pick<
    SrtSandboxOptions,
    | 'workspace'
    | 'readOnlyWorkspaces'
    | 'hideHome'
    | 'allowRead'
    | 'denyRead'
    | 'denyWrite'
    | 'allowedDomains'
  >;
  /** The rule options given on the command line, to warn that a resumed sandbox ignores them. */
  readonly rulesGiven: string[];
}

const RULE_FLAGS = [
  'workspace',
  'read-only',
  'no-hide-home',
  'allow-read',
  'deny-read',
  'deny-write',
  'allow-domain',
  'no-default-domains',
] as const;

export function sandboxSpec(values: ParsedValues<typeof SANDBOX_OPTIONS>, cwd: string): SandboxSpec {
  const path = (value: string) => resolveUserPath(value, cwd);
  const paths = (list: string[] | undefined) => list?.map(path);
  const domains = [
    ...(values['no-default-domains'] ? [] : DEFAULT_ALLOWED_DOMAINS),
    ...(values['allow-domain'] ?? []),
  ];
  return {
    sandboxId: values['sandbox-id'],
    keep: values.keep ?? false,
    directory: values.directory,
    runtime: runtimeSettings(values),
    rules: {
      workspace: values.workspace === undefined ? undefined : path(values.workspace),
      readOnlyWorkspaces: paths(values['read-only']),
      hideHome: !values['no-hide-home'],
      allowRead: paths(values['allow-read']),
      denyRead: paths(values['deny-read']),
      denyWrite: paths(values['deny-write']),
      allowedDomains: [...new Set(domains)],
    },
    rulesGiven: RULE_FLAGS.filter(flag => values[flag] !== undefined).map(flag => `--${flag}`),
  };
}
