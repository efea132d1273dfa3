// srt's own check (not part of its documented API): the reference ours must not exceed.
import { isValidAllowedDomainEntry } from '@anthropic-ai/sandbox-runtime/dist/sandbox/domain-pattern.js';
import { describe, expect, it } from 'vitest';

import { SandboxOptionsError } from '@internal/sandbox-core';
import { DEFAULT_ALLOWED_DOMAINS } from './default-allowed-domains.js';
import { isValidAllowedDomain, validateAllowedDomains } from './domain-pattern.js';

const valid = [
  'example.com',
  'api.github.com',
  '*.example.com',
  '*.a.example.com',
  'example.com:443',
  '*.example.com:8443',
  '127.0.0.1',
  '127.0.0.1:18443',
  'localhost',
  'localhost:3000',
  '[::1]',
  '[::1]:443',
  '[2001:db8::1]:65535',
  'under_score.example.com',
  ...DEFAULT_ALLOWED_DOMAINS,
];
const invalid = [
  '',
  '*',
  '*.com',
  '*.',
  'com',
  'https://example.com',
  'example.com/path',
  'example.com:0',
  'example.com:65536',
  'example.com:080',
  'example.com:',
  '::1',
  '[::1',
  '[::1]x',
  '[127.0.0.1]',
  'exa mple.com',
  'example..com',
  '.example.com',
  'example.com.',
  '-bad.example.com',
  'a.*.example.com',
  'evil.com:443.allowed.com',
];

describe('isValidAllowedDomain', () => {
  it.each(valid)('accepts %j, as srt does', entry => {
    expect(isValidAllowedDomain(entry)).toBe(true);
    expect(isValidAllowedDomainEntry(entry)).toBe(true);
  });

  it.each(invalid)('refuses %j', entry => {
    expect(isValidAllowedDomain(entry)).toBe(false);
  });
});

describe('validateAllowedDomains', () => {
  it('drops duplicates and keeps the order', () => {
    expect(validateAllowedDomains(['b.com', 'a.com', 'b.com'])).toEqual(['b.com', 'a.com']);
  });

  it('names every bad entry and says what srt accepts', () => {
    expect(() => validateAllowedDomains(['ok.com', '*', 'https://x.org'])).toThrow(SandboxOptionsError);
    expect(() => validateAllowedDomains(['ok.com', '*', 'https://x.org'])).toThrow(
      /"\*", "https:\/\/x\.org".*\*\.example\.com/,
    );
  });
});
