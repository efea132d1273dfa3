/**
 * Turns a harness network policy into srt's allow list. srt allows exactly what it lists and refuses
 * everything else; it has no "allow all", no address ranges and no deny list that overrides an
 * allow. A policy that needs any of those is refused with HarnessCapabilityUnsupportedError instead
 * of being half applied, which would leave the sandbox reaching more (or less) than the caller thinks.
 */
import { HarnessCapabilityUnsupportedError, type HarnessV1NetworkPolicy } from '@ai-sdk/harness';
import { isIP } from 'node:net';
import { validateAllowedDomains } from '../fence/domain-pattern.js';

export function allowedDomainsForPolicy(policy: HarnessV1NetworkPolicy): string[] {
  const unsupported = (message: string) => new HarnessCapabilityUnsupportedError({ message });
  if (typeof policy !== 'object' || policy === null) throw unsupported('A network policy must be an object.');
  switch (policy.mode) {
    case 'deny-all':
      return [];
    case 'allow-all':
      throw unsupported(
        "srt's proxy allows only the hosts it lists, so 'allow-all' cannot be honoured: " +
          "list the hosts with { mode: 'custom', allowedHosts }.",
      );
    case 'custom': {
      if (policy.deniedCIDRs && policy.deniedCIDRs.length > 0) {
        throw unsupported(
          'srt cannot deny addresses inside an allow list: drop deniedCIDRs (srt already refuses loopback, ' +
            'link-local and metadata addresses a host name resolves to).',
        );
      }
      const addresses = (policy.allowedCIDRs ?? []).map(cidr => singleAddress(cidr));
      const hosts = validateAllowedDomains([...(policy.allowedHosts ?? [])], 'allowedHosts');
      return [...new Set([...hosts, ...addresses])];
    }
    default:
      throw unsupported(`Unknown network policy mode ${JSON.stringify((policy as { mode: unknown }).mode)}.`);
  }
}

/** `10.0.0.5`, `10.0.0.5/32` or `::1/128` → the address in srt's syntax; a real range is refused. */
function singleAddress(cidr: string): string {
  const [address = '', bits] = String(cidr).split('/');
  const version = isIP(address);
  const single = bits === undefined || (version === 4 && bits === '32') || (version === 6 && bits === '128');
  if (version === 0 || !single) {
    throw new HarnessCapabilityUnsupportedError({
      message: `srt allows single addresses, not ranges: ${JSON.stringify(cidr)} cannot be allowed. List each address.`,
    });
  }
  return version === 6 ? `[${address}]` : address;
}
