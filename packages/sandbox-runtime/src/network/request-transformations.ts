/**
 * Reads the harness's request transformations as credential swaps srt's proxy can perform.
 *
 * srt does one thing: it finds a placeholder in an outgoing request to an allowed host and puts the
 * real value in its place. A transformation expresses that when it matches a header whose exact value
 * is the placeholder and sets that same header to the real value; that is what every credential-
 * brokering adapter sends. Anything else (adding a header the request does not carry, say) srt cannot
 * do, so the rule is dropped with a warning rather than applied partly. srt matches by host only: the
 * path and method a rule may also name are not enforced, and the random placeholder, sent only by the
 * harness, is what keeps the swap to its own requests.
 */
import type { HarnessV1RequestTransformation } from '@ai-sdk/harness';

export interface CredentialSwap {
  /** A stable key: adding the same rule twice must not register it twice. */
  readonly key: string;
  readonly header: string;
  readonly placeholder: string;
  readonly realValue: string;
  readonly host: string;
}

export function credentialSwapsOf(rules: ReadonlyArray<HarnessV1RequestTransformation>): {
  swaps: CredentialSwap[];
  warnings: string[];
} {
  const swaps: CredentialSwap[] = [];
  const warnings: string[] = [];
  for (const rule of rules ?? []) {
    const host = typeof rule?.match?.host === 'string' ? rule.match.host.toLowerCase() : undefined;
    if (!host) {
      warnings.push('a request transformation without a host was ignored');
      continue;
    }
    for (const [header, realValue] of Object.entries(rule.transform?.headers ?? {})) {
      const placeholder = exactHeaderValue(rule, header);
      if (placeholder === undefined || typeof realValue !== 'string') {
        warnings.push(
          `the ${header} header for ${host} was left out: srt can swap a placeholder the request carries, ` +
            'not add a header',
        );
        continue;
      }
      swaps.push({
        key: `${host}\0${header.toLowerCase()}\0${placeholder}`,
        header,
        placeholder,
        realValue,
        host,
      });
    }
  }
  return { swaps, warnings };
}

function exactHeaderValue(rule: HarnessV1RequestTransformation, header: string): string | undefined {
  for (const matcher of rule.match.headers ?? []) {
    const key = matcher.key as { exact?: unknown } | undefined;
    const value = matcher.value as { exact?: unknown } | undefined;
    if (typeof key?.exact !== 'string' || key.exact.toLowerCase() !== header.toLowerCase()) continue;
    if (typeof value?.exact === 'string' && value.exact.length >= 8) return value.exact;
  }
  return undefined;
}
