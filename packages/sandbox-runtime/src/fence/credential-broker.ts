import { SandboxOptionsError } from '@internal/sandbox-core';
import { validateAllowedDomains } from './domain-pattern.js';

/** The part of srt's SentinelRegistry (getSentinelRegistry(); its type is not exported) used here. */
export interface SentinelRegistryLike {
  registerWithSentinel(
    name: string,
    sentinel: string,
    realValue: string,
    injectHosts: readonly string[],
  ): string;
  clear(): void;
  readonly size: number;
}

export interface CredentialSpec {
  /** A label for the credential (its variable name, say); need not be unique. */
  readonly name: string;
  /** What the sandbox holds and sends; srt's proxy swaps it for `realValue` on the way out. */
  readonly placeholder: string;
  readonly realValue: string;
  /** The hosts the real value may go to, in allow-list syntax. */
  readonly hosts: readonly string[];
}

export interface CredentialRegistration {
  readonly placeholder: string;
  /** Stops the swap and drops the real value from srt's memory. Idempotent. */
  withdraw(): void;
}

interface Entry {
  readonly key: string;
  readonly spec: CredentialSpec;
}

/*
 * srt's registry has no way to remove one credential: register (idempotent per name, updating the
 * value and hosts in place) and clear() (everything). So a withdrawal first overwrites the entry
 * with an empty value and no host — from then on the placeholder is swapped nowhere and the real
 * value is gone — and, when every entry in the registry is one of ours, clears it and registers
 * the live ones again, which leaves nothing of the withdrawn one. All of it runs synchronously, so
 * no proxied request sees the registry half rebuilt.
 *
 * Each registration gets a key of its own: srt keeps the first placeholder of a name and ignores a
 * new one, so reusing a name after a withdrawal would otherwise keep the old placeholder.
 */
export class CredentialBroker {
  private readonly live = new Map<string, Entry>();
  private withdrawn = 0;
  private counter = 0;

  constructor(private readonly registry: () => SentinelRegistryLike) {}

  register(spec: CredentialSpec): CredentialRegistration {
    const { name, placeholder, realValue } = spec;
    if (typeof placeholder !== 'string' || placeholder.length < 8) {
      throw new SandboxOptionsError(
        `The placeholder of credential ${name} must be a string of at least 8 characters.`,
      );
    }
    if (typeof realValue !== 'string' || realValue === '') {
      throw new SandboxOptionsError(`Credential ${name} has no real value.`);
    }
    if (!Array.isArray(spec.hosts) || spec.hosts.length === 0) {
      throw new SandboxOptionsError(`Credential ${name} names no host to send its real value to.`);
    }
    const hosts = validateAllowedDomains(spec.hosts, `hosts of credential ${name}`);
    for (const other of this.live.values()) {
      const theirs = other.spec.placeholder;
      // srt matches placeholders by substring, earliest first: nested ones would swap unpredictably.
      if (theirs.includes(placeholder) || placeholder.includes(theirs)) {
        throw new SandboxOptionsError(
          `The placeholder of credential ${name} overlaps the placeholder of credential ${other.spec.name}: ` +
            `use random placeholders, neither a part of the other.`,
        );
      }
    }
    const key = `ai-sdk-sandbox:${++this.counter}:${name}`;
    const entry: Entry = { key, spec: { name, placeholder, realValue, hosts } };
    const accepted = this.registry().registerWithSentinel(key, placeholder, realValue, hosts);
    if (accepted !== placeholder) {
      throw new SandboxOptionsError(`srt did not accept the placeholder of credential ${name}.`);
    }
    this.live.set(key, entry);
    let done = false;
    return {
      placeholder,
      withdraw: () => {
        if (done) return;
        done = true;
        this.withdraw(entry);
      },
    };
  }

  /** The registrations still live (for tests and diagnostics; no values). */
  get size(): number {
    return this.live.size;
  }

  /** Forgets every registration; called when srt was reset, which cleared its registry. */
  forgetAll(): void {
    this.live.clear();
    this.withdrawn = 0;
  }

  private withdraw(entry: Entry): void {
    if (!this.live.delete(entry.key)) return;
    const registry = this.registry();
    registry.registerWithSentinel(entry.key, entry.spec.placeholder, '', []);
    this.withdrawn += 1;
    if (registry.size === this.live.size + this.withdrawn) {
      registry.clear();
      this.withdrawn = 0;
      for (const { key, spec } of this.live.values()) {
        registry.registerWithSentinel(key, spec.placeholder, spec.realValue, spec.hosts);
      }
    }
  }
}
