import { HarnessCapabilityUnsupportedError } from '@ai-sdk/harness';
import { describe, expect, it } from 'vitest';
import { allowedDomainsForPolicy } from './network-policy.js';

describe('allowedDomainsForPolicy', () => {
  it('maps deny-all to an empty list and custom hosts to themselves', () => {
    expect(allowedDomainsForPolicy({ mode: 'deny-all' })).toEqual([]);
    expect(
      allowedDomainsForPolicy({ mode: 'custom', allowedHosts: ['a.example.com', '*.b.example.com'] }),
    ).toEqual(['a.example.com', '*.b.example.com']);
  });

  it('turns single-address CIDRs into addresses srt can list', () => {
    expect(
      allowedDomainsForPolicy({ mode: 'custom', allowedCIDRs: ['10.1.2.3/32', '192.168.0.9', '::1/128'] }),
    ).toEqual(['10.1.2.3', '192.168.0.9', '[::1]']);
  });

  it.each([
    [{ mode: 'allow-all' }, 'allow-all'],
    [{ mode: 'custom', allowedCIDRs: ['10.0.0.0/8'] }, 'ranges'],
    [{ mode: 'custom', allowedHosts: ['x.example.com'], deniedCIDRs: ['169.254.169.254/32'] }, 'deniedCIDRs'],
    [{ mode: 'custom', allowedCIDRs: ['not-an-address'] }, 'not-an-address'],
    [{ mode: 'sometimes' }, 'sometimes'],
  ])('refuses %j with HarnessCapabilityUnsupportedError', (policy, mentioned) => {
    let error: unknown;
    try {
      allowedDomainsForPolicy(policy as never);
    } catch (caught) {
      error = caught;
    }
    expect(HarnessCapabilityUnsupportedError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain(mentioned);
  });

  it('refuses host patterns srt would not understand', () => {
    expect(() => allowedDomainsForPolicy({ mode: 'custom', allowedHosts: ['http://x.com/path'] })).toThrow(
      /allowedHosts/,
    );
  });
});
