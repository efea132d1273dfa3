/**
 * The credentials one view of a sandbox registered with srt's proxy: from the harness's request
 * transformations, and from real keys masked out of command environments. A view withdraws its own
 * on release, leaving the other views' in place.
 */
import type { HarnessV1RequestTransformation } from '@ai-sdk/harness';
import type { CredentialRegistration } from '../fence/credential-broker.js';
import type { SrtRuntime } from '../fence/srt-runtime.js';
import {
  credentialHost,
  maskCredentialEnvironment,
  newPlaceholder,
  type CredentialVariables,
} from '../network/credential-environment.js';
import { credentialSwapsOf, type CredentialSwap } from '../network/request-transformations.js';

interface Registered {
  readonly host: string;
  readonly placeholder: string;
  readonly registration: CredentialRegistration;
}

export class CredentialSet {
  /** By swap key: adding the same rule again finds it here and changes nothing. */
  private readonly swaps = new Map<string, Registered>();
  /** Placeholders of masked variables, by variable, value and host, so every command gets the same. */
  private readonly masked = new Map<string, Registered>();

  constructor(
    private readonly runtime: SrtRuntime,
    /** Called when the hosts change (the sandbox recomputes its allow list). */
    public onHostsChanged: () => void,
    private readonly extraVariables: CredentialVariables,
  ) {}

  get hosts(): string[] {
    return [...this.swaps.values(), ...this.masked.values()].map(entry => entry.host);
  }

  /** Registers the rules' swaps; returns warnings for rules srt cannot honour. */
  add(rules: ReadonlyArray<HarnessV1RequestTransformation>): string[] {
    const { swaps, warnings } = credentialSwapsOf(rules);
    for (const swap of swaps) this.register(swap);
    this.onHostsChanged();
    return warnings;
  }

  /** Makes the rules the complete set: swaps not among them are withdrawn. */
  replace(rules: ReadonlyArray<HarnessV1RequestTransformation>): string[] {
    const { swaps, warnings } = credentialSwapsOf(rules);
    const wanted = new Set(swaps.map(swap => swap.key));
    for (const [key, entry] of this.swaps) {
      if (wanted.has(key)) continue;
      entry.registration.withdraw();
      this.swaps.delete(key);
    }
    for (const swap of swaps) this.register(swap);
    this.onHostsChanged();
    return warnings;
  }

  /** `env` with real credentials replaced by registered placeholders. */
  maskEnvironment(env: Record<string, string>): Record<string, string> {
    let added = false;
    const result = maskCredentialEnvironment(env, this.extraVariables, (variable, realValue, host) => {
      const key = `${variable}\0${host}\0${realValue}`;
      let entry = this.masked.get(key);
      if (!entry) {
        const placeholder = newPlaceholder();
        entry = {
          host,
          placeholder,
          registration: this.runtime.registerCredential({
            name: variable,
            placeholder,
            realValue,
            hosts: [credentialHost(host)],
          }),
        };
        this.masked.set(key, entry);
        added = true;
      }
      return entry.placeholder;
    });
    if (added) this.onHostsChanged();
    return result.env;
  }

  withdrawAll(): void {
    for (const entry of [...this.swaps.values(), ...this.masked.values()]) entry.registration.withdraw();
    this.swaps.clear();
    this.masked.clear();
  }

  private register(swap: CredentialSwap): void {
    if (this.swaps.has(swap.key)) return;
    const registration = this.runtime.registerCredential({
      name: swap.header,
      placeholder: swap.placeholder,
      realValue: swap.realValue,
      hosts: [credentialHost(swap.host)],
    });
    this.swaps.set(swap.key, { host: swap.host, placeholder: swap.placeholder, registration });
  }
}
