import { describe, expect, it } from 'vitest';
import { credentialSwapsOf } from './request-transformations.js';

const placeholder = `aisdkhc_${'a'.repeat(43)}`;

describe('credentialSwapsOf', () => {
  it('reads a header swap, the shape credential-brokering adapters send', () => {
    const { swaps, warnings } = credentialSwapsOf([
      {
        match: {
          host: 'API.Anthropic.com',
          path: { startsWith: '/v1' },
          headers: [{ key: { exact: 'x-api-key' }, value: { exact: placeholder } }],
        },
        transform: { headers: { 'x-api-key': 'sk-real' } },
      },
    ]);
    expect(warnings).toEqual([]);
    expect(swaps).toEqual([
      expect.objectContaining({
        host: 'api.anthropic.com',
        header: 'x-api-key',
        placeholder,
        realValue: 'sk-real',
      }),
    ]);
  });

  it('gives the same rule the same key, so adding it twice registers it once', () => {
    const rule = {
      match: {
        host: 'h.example.com',
        headers: [{ key: { exact: 'authorization' }, value: { exact: `Bearer ${placeholder}` } }],
      },
      transform: { headers: { Authorization: 'Bearer real' } },
    };
    expect(credentialSwapsOf([rule]).swaps[0]!.key).toBe(credentialSwapsOf([rule]).swaps[0]!.key);
  });

  it('drops, with a warning, a header the request does not carry as a placeholder', () => {
    const { swaps, warnings } = credentialSwapsOf([
      { match: { host: 'chatgpt.com' }, transform: { headers: { 'ChatGPT-Account-ID': 'acct' } } },
      {
        match: {
          host: 'x.example.com',
          headers: [{ key: { exact: 'x-api-key' }, value: { startsWith: 'aisdkhc_' } }],
        },
        transform: { headers: { 'x-api-key': 'real' } },
      },
    ]);
    expect(swaps).toEqual([]);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toContain('ChatGPT-Account-ID');
  });
});
