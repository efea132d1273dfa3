import { describe, expect, it } from 'vitest';
import { credentialHost, maskCredentialEnvironment, PLACEHOLDER_PATTERN } from './credential-environment.js';

const mint = (variable: string) => `aisdkhc_${variable.padEnd(43, 'x').slice(0, 43)}`;

describe('maskCredentialEnvironment', () => {
  it('replaces known credentials and names the host each may go to', () => {
    const { env, masked } = maskCredentialEnvironment(
      {
        ANTHROPIC_API_KEY: 'sk-ant',
        OPENAI_API_KEY: 'sk-oai',
        PATH: '/bin',
        ANTHROPIC_BASE_URL: 'https://proxy.example.com:8443/v1',
      },
      {},
      mint,
    );
    expect(env.PATH).toBe('/bin');
    expect(env.ANTHROPIC_API_KEY).toMatch(PLACEHOLDER_PATTERN);
    expect(masked).toEqual([
      expect.objectContaining({
        variable: 'ANTHROPIC_API_KEY',
        realValue: 'sk-ant',
        host: 'proxy.example.com:8443',
      }),
      expect.objectContaining({ variable: 'OPENAI_API_KEY', realValue: 'sk-oai', host: 'api.openai.com' }),
    ]);
  });

  it('masks the variables the caller names, and leaves placeholders the harness made alone', () => {
    const harnessMade = `aisdkhc_${'b'.repeat(43)}`;
    const { env, masked } = maskCredentialEnvironment(
      { MY_TOKEN: 'secret', AI_GATEWAY_API_KEY: harnessMade },
      { MY_TOKEN: { host: 'api.example.com' } },
      mint,
    );
    expect(env.AI_GATEWAY_API_KEY).toBe(harnessMade);
    expect(masked.map(entry => entry.variable)).toEqual(['MY_TOKEN']);
  });
});

describe('credentialHost', () => {
  it.each([
    ['api.anthropic.com', 'api.anthropic.com'],
    ['127.0.0.1:8443', '127.0.0.1'],
    ['[::1]:443', '[::1]'],
  ])('%s → %s', (host, expected) => expect(credentialHost(host)).toBe(expected));
});
