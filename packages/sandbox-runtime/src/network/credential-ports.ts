/**
 * srt's proxy swaps a credential by host name alone, whatever the port. A credential meant for
 * `127.0.0.1:8443` would therefore also be swapped into requests to `127.0.0.1:9000`, a different
 * service, if the allow list let the sandbox reach it. So while a credential with a port is
 * registered, its host is reachable on that port only: the allow list's other entries for the same
 * name (another port, or any port) are left out. Credentials without a port (real API hosts, on 443)
 * are untouched.
 */
import { credentialHost } from './credential-environment.js';

export function narrowToCredentialPorts(
  domains: readonly string[],
  credentialHosts: readonly string[],
): string[] {
  const pinned = new Map<string, Set<string>>();
  for (const host of credentialHosts) {
    const name = credentialHost(host);
    if (name === host) continue; // no port: the name is the credential's on every port already
    const ports = pinned.get(name) ?? new Set<string>();
    ports.add(host);
    pinned.set(name, ports);
  }
  if (pinned.size === 0) return [...domains];
  return domains.filter(entry => {
    const allowed = pinned.get(credentialHost(entry));
    return !allowed || allowed.has(entry);
  });
}
