import { describe, expect, it } from 'vitest';
import { narrowToCredentialPorts } from './credential-ports.js';

describe('narrowToCredentialPorts', () => {
  it('keeps a host with a credential on a port reachable on that port only', () => {
    expect(
      narrowToCredentialPorts(
        ['127.0.0.1:8443', '127.0.0.1:9000', '127.0.0.1', 'registry.npmjs.org', '[::1]:9000'],
        ['127.0.0.1:8443'],
      ),
    ).toEqual(['127.0.0.1:8443', 'registry.npmjs.org', '[::1]:9000']);
  });

  it('leaves the list alone for credentials without a port', () => {
    const domains = ['api.anthropic.com', 'api.anthropic.com:8080'];
    expect(narrowToCredentialPorts(domains, ['api.anthropic.com'])).toEqual(domains);
  });
});
