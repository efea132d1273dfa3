import { isIP } from 'node:net';

import { SandboxOptionsError } from '@internal/sandbox-core';

/*
 * srt's allow-list syntax, checked here so a bad entry is refused with our error before srt sees
 * it: `example.com`, `*.example.com` (subdomains only, at least two labels after the star), an
 * IPv4 literal, `localhost`, a bracketed IPv6 literal `[::1]`, each with an optional `:port`
 * (1-65535, no leading zero). srt accepts a little more (any byte in a label); we keep to what
 * DNS names can be, which is also all srt can match.
 */

const LABEL = /^(?!-)[A-Za-z0-9_-]{1,63}(?<!-)$/;

function parsePort(text: string): number | undefined {
  if (!/^[1-9][0-9]{0,4}$/.test(text)) return undefined;
  const port = Number(text);
  return port <= 65535 ? port : undefined;
}

function isHostName(host: string): boolean {
  if (host === 'localhost') return true;
  if (host.length > 253 || !host.includes('.')) return false;
  return host.split('.').every(label => LABEL.test(label));
}

/** Whether `entry` is an allow-list entry srt understands. */
export function isValidAllowedDomain(entry: string): boolean {
  if (typeof entry !== 'string' || entry === '') return false;
  let host = entry;
  if (entry.startsWith('[')) {
    const close = entry.indexOf(']');
    if (close === -1) return false;
    const rest = entry.slice(close + 1);
    if (rest !== '' && (!rest.startsWith(':') || parsePort(rest.slice(1)) === undefined)) return false;
    return isIP(entry.slice(1, close)) === 6;
  }
  const colon = entry.indexOf(':');
  if (colon !== -1) {
    if (parsePort(entry.slice(colon + 1)) === undefined) return false;
    host = entry.slice(0, colon);
  }
  if (isIP(host) === 4) return true;
  if (host.startsWith('*.')) {
    const base = host.slice(2);
    return base.includes('.') && isHostName(base);
  }
  return isHostName(host);
}

/** Returns a copy of `domains` with duplicates dropped, or throws naming every bad entry. */
export function validateAllowedDomains(domains: readonly string[], option = 'allowedDomains'): string[] {
  if (!Array.isArray(domains)) {
    throw new SandboxOptionsError(`${option} must be an array of host patterns.`);
  }
  const bad = domains.filter(entry => !isValidAllowedDomain(entry));
  if (bad.length > 0) {
    throw new SandboxOptionsError(
      `${option} has entries srt cannot match: ${bad.map(entry => JSON.stringify(entry)).join(', ')}. ` +
        `Use a host ("example.com"), a wildcard for its subdomains ("*.example.com"), an IPv4 address, ` +
        `or a bracketed IPv6 address ("[::1]"), each with an optional ":port". ` +
        `No scheme, path, "*" alone, or wildcard over a top-level domain ("*.com").`,
    );
  }
  return [...new Set(domains)];
}
