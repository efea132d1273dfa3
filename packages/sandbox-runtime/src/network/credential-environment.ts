/**
 * Keeps real credentials out of the sandbox even when an adapter hands them over in a command's
 * environment (claude-code 1.0.41 puts ANTHROPIC_API_KEY in the bridge's env). Each known credential
 * variable is replaced by a placeholder, and srt's proxy swaps it back only on requests to that API's
 * host: the agent can call its API but never read the key.
 */
import { randomBytes } from 'node:crypto';

/** Credential variables, and where each one's API lives (a base-URL variable may move it). */
export const KNOWN_CREDENTIAL_VARIABLES: Readonly<
  Record<string, { baseUrlVariable?: string; defaultHost: string }>
> = {
  ANTHROPIC_API_KEY: { baseUrlVariable: 'ANTHROPIC_BASE_URL', defaultHost: 'api.anthropic.com' },
  ANTHROPIC_AUTH_TOKEN: { baseUrlVariable: 'ANTHROPIC_BASE_URL', defaultHost: 'api.anthropic.com' },
  CLAUDE_CODE_OAUTH_TOKEN: { baseUrlVariable: 'ANTHROPIC_BASE_URL', defaultHost: 'api.anthropic.com' },
  OPENAI_API_KEY: { baseUrlVariable: 'OPENAI_BASE_URL', defaultHost: 'api.openai.com' },
  AI_GATEWAY_API_KEY: { baseUrlVariable: 'AI_GATEWAY_BASE_URL', defaultHost: 'ai-gateway.vercel.sh' },
};

/** What the caller names beyond the known ones: a variable and the host its value may go to. */
export type CredentialVariables = Readonly<Record<string, { host: string }>>;

export interface MaskedCredential {
  readonly variable: string;
  readonly placeholder: string;
  readonly realValue: string;
  readonly host: string;
}

/** The placeholder format the harness itself uses, so a placeholder looks the same whoever made it. */
export function newPlaceholder(): string {
  return `aisdkhc_${randomBytes(32).toString('base64url')}`;
}

export const PLACEHOLDER_PATTERN = /^aisdkhc_[A-Za-z0-9_-]{43}$/;

/**
 * Returns `env` with each real credential swapped for a placeholder, and the swaps to register.
 * `placeholderFor` keeps one placeholder per (variable, value, host), so repeated commands agree.
 */
export function maskCredentialEnvironment(
  env: Record<string, string>,
  extra: CredentialVariables,
  placeholderFor: (variable: string, realValue: string, host: string) => string,
): { env: Record<string, string>; masked: MaskedCredential[] } {
  const masked: MaskedCredential[] = [];
  const result = { ...env };
  for (const [variable, value] of Object.entries(env)) {
    if (!value || PLACEHOLDER_PATTERN.test(value)) continue; // already brokered by the harness
    const host = hostFor(variable, env, extra);
    if (!host) continue;
    const placeholder = placeholderFor(variable, value, host);
    result[variable] = placeholder;
    masked.push({ variable, placeholder, realValue: value, host });
  }
  return { env: result, masked };
}

function hostFor(
  variable: string,
  env: Record<string, string>,
  extra: CredentialVariables,
): string | undefined {
  const named = extra[variable];
  if (named) return named.host;
  const known = KNOWN_CREDENTIAL_VARIABLES[variable];
  if (!known) return undefined;
  const baseUrl = known.baseUrlVariable ? env[known.baseUrlVariable] : undefined;
  if (!baseUrl) return known.defaultHost;
  try {
    // host includes the port: srt's allow list and its credential hosts match host:port.
    return new URL(baseUrl).host;
  } catch {
    return known.defaultHost;
  }
}

/**
 * The host a credential may go to, as srt's proxy matches it: by name, without the port. The port
 * still counts for reaching the host at all, which the allow list decides.
 */
export function credentialHost(host: string): string {
  const bracket = host.startsWith('[') ? host.indexOf(']') : -1;
  if (bracket !== -1) return host.slice(0, bracket + 1);
  const colon = host.lastIndexOf(':');
  return colon === -1 ? host : host.slice(0, colon);
}
