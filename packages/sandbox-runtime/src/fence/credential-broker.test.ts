import { SandboxManager } from '@anthropic-ai/sandbox-runtime';
import { describe, expect, it } from 'vitest';

import { SandboxOptionsError } from '@internal/sandbox-core';
import { CredentialBroker, type SentinelRegistryLike } from './credential-broker.js';

// srt's own registry class (its type is not exported; a fresh instance keeps this test's state apart).
type Registry = SentinelRegistryLike & {
  substituteInHeaders(
    headers: Record<string, string>,
    host: string,
    matches: (h: string, p: string) => boolean,
  ): void;
  lookupReal(sentinel: string): string | undefined;
};
const RegistryClass = SandboxManager.getSentinelRegistry().constructor as new () => Registry;
const exact = (host: string, pattern: string) => host === pattern;

function swap(registry: Registry, value: string, host = 'api.example.com'): string {
  const headers = { authorization: `Bearer ${value}` };
  registry.substituteInHeaders(headers, host, exact);
  return headers.authorization;
}

describe('CredentialBroker', () => {
  it('has srt swap the placeholder for the real value, for its hosts only', () => {
    const registry = new RegistryClass();
    const broker = new CredentialBroker(() => registry);
    broker.register({
      name: 'KEY',
      placeholder: 'aisdkhc_aaaaaaaaaaaa',
      realValue: 'sk-real',
      hosts: ['api.example.com'],
    });
    expect(swap(registry, 'aisdkhc_aaaaaaaaaaaa')).toBe('Bearer sk-real');
    expect(swap(registry, 'aisdkhc_aaaaaaaaaaaa', 'evil.example.net')).toBe('Bearer aisdkhc_aaaaaaaaaaaa');
  });

  it('withdraws one credential, leaving no trace of its value, and keeps the others', () => {
    const registry = new RegistryClass();
    const broker = new CredentialBroker(() => registry);
    const a = broker.register({
      name: 'A',
      placeholder: 'aisdkhc_aaaaaaaaaaaa',
      realValue: 'real-a',
      hosts: ['api.example.com'],
    });
    broker.register({
      name: 'B',
      placeholder: 'aisdkhc_bbbbbbbbbbbb',
      realValue: 'real-b',
      hosts: ['api.example.com'],
    });
    a.withdraw();
    a.withdraw();
    expect(swap(registry, 'aisdkhc_aaaaaaaaaaaa')).toBe('Bearer aisdkhc_aaaaaaaaaaaa');
    expect(swap(registry, 'aisdkhc_bbbbbbbbbbbb')).toBe('Bearer real-b');
    expect(registry.size).toBe(1);
    expect(registry.lookupReal('aisdkhc_aaaaaaaaaaaa')).toBeUndefined();
    expect(broker.size).toBe(1);
  });

  it('neutralises a withdrawn credential even when the registry holds entries that are not ours', () => {
    const registry = new RegistryClass();
    registry.registerWithSentinel('srt-own', 'fake_value_x', 'theirs', ['api.example.com']);
    const broker = new CredentialBroker(() => registry);
    const a = broker.register({
      name: 'A',
      placeholder: 'aisdkhc_aaaaaaaaaaaa',
      realValue: 'real-a',
      hosts: ['api.example.com'],
    });
    a.withdraw();
    expect(swap(registry, 'aisdkhc_aaaaaaaaaaaa')).toBe('Bearer aisdkhc_aaaaaaaaaaaa');
    expect(registry.lookupReal('aisdkhc_aaaaaaaaaaaa')).toBe('');
    expect(swap(registry, 'fake_value_x')).toBe('Bearer theirs');
  });

  it('takes a new placeholder for a name registered again after a withdrawal', () => {
    const registry = new RegistryClass();
    const broker = new CredentialBroker(() => registry);
    broker
      .register({
        name: 'K',
        placeholder: 'aisdkhc_first_000000',
        realValue: 'one',
        hosts: ['api.example.com'],
      })
      .withdraw();
    broker.register({
      name: 'K',
      placeholder: 'aisdkhc_second_00000',
      realValue: 'two',
      hosts: ['api.example.com'],
    });
    expect(swap(registry, 'aisdkhc_second_00000')).toBe('Bearer two');
  });

  it('refuses overlapping placeholders, no host, and bad hosts', () => {
    const broker = new CredentialBroker(() => new RegistryClass());
    broker.register({
      name: 'A',
      placeholder: 'aisdkhc_aaaaaaaaaaaa',
      realValue: 'x',
      hosts: ['api.example.com'],
    });
    const again = (placeholder: string, hosts = ['api.example.com']) =>
      broker.register({ name: 'B', placeholder, realValue: 'y', hosts });
    expect(() => again('aisdkhc_aaaaaaaaaaaa_more')).toThrow(/overlaps/);
    expect(() => again('aisdkhc_aaaa')).toThrow(/overlaps/);
    expect(() => again('aisdkhc_cccccccccccc', [])).toThrow(SandboxOptionsError);
    expect(() => again('aisdkhc_cccccccccccc', ['https://x.org'])).toThrow(SandboxOptionsError);
    expect(() => again('short')).toThrow(SandboxOptionsError);
  });
});
