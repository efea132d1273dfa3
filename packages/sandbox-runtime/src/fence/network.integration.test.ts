// Real srt proxy: per-sandbox allow lists and the placeholder → real value swap. The only host
// reachable from this machine is registry.npmjs.org; credentials go to a loopback HTTPS server.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { collect, runFenced, tempDir, trustedTestCertificate } from './fence-test-support.js';
import { launchFenced } from './launch-fenced.js';
import { ensureLayout, sandboxLayout } from './layout.js';
import { srtRuntime } from './srt-runtime.js';

const PING = 'https://registry.npmjs.org/-/ping';
const curlStatus = `curl -sS -o /dev/null -m 20 -w '%{http_code}' ${PING}`;
const fetchStatus = `node -e "fetch('${PING}').then(r => console.log('fetch', r.status), e => console.log('fetch failed', e.cause?.code ?? e.message))"`;

let root: Awaited<ReturnType<typeof tempDir>>;

beforeAll(async () => {
  root = await tempDir();
});
afterAll(async () => {
  await root.remove();
});

describe('network allow lists', () => {
  it('reaches an allowed host with curl and with Node fetch', async () => {
    const layout = sandboxLayout('net-allowed', root.path);
    const result = await runFenced(
      { layout, allowedDomains: ['registry.npmjs.org'] },
      `${curlStatus}; echo; ${fetchStatus}`,
    );
    expect(result.stdout).toMatch(/^200\nfetch 200\n$/);
  });

  it('refuses a host that is not on the list', async () => {
    const layout = sandboxLayout('net-denied', root.path);
    const result = await runFenced(
      { layout, allowedDomains: ['example.com'] },
      `${curlStatus}; echo; ${fetchStatus}`,
    );
    // srt's proxy answers the CONNECT with 403; curl reports no HTTP status of the upstream.
    expect(result.stdout.split('\n')[0]).not.toBe('200');
    expect(result.stdout).not.toContain('fetch 200');
  });

  it('keeps a list per sandbox when two run at the same time', async () => {
    const runtime = srtRuntime();
    await runtime.ensure();
    expect(runtime.isolatesNetwork).toBe(true);
    const allowed = sandboxLayout('net-a', root.path);
    const denied = sandboxLayout('net-b', root.path);
    await Promise.all([ensureLayout(allowed), ensureLayout(denied)]);
    // Both wait on stdin until both have started, so each request is made while the other lives.
    const script = `read -r go; ${curlStatus}`;
    const a = await launchFenced({ layout: allowed, allowedDomains: ['registry.npmjs.org'] }, [
      'bash',
      '-c',
      script,
    ]);
    const b = await launchFenced({ layout: denied, allowedDomains: ['api.anthropic.com'] }, [
      'bash',
      '-c',
      script,
    ]);
    try {
      expect(a.commandId).not.toBe(b.commandId);
      a.child.stdin!.write('go\n');
      b.child.stdin!.write('go\n');
      const [ra, rb] = await Promise.all([collect(a), collect(b)]);
      expect(ra.stdout).toBe('200');
      expect(rb.stdout).not.toBe('200');
    } finally {
      a.cleanup();
      b.cleanup();
    }
  });
});

describe('credential brokering', () => {
  let server: Server;
  let port: number;
  const received: { header: string | undefined; body: string }[] = [];
  let untrust: () => void;

  beforeAll(async () => {
    // srt's proxy checks the upstream with Node's default trust: this process trusts a test CA.
    const certificate = trustedTestCertificate(join(root.path, 'tls'), ['127.0.0.1'], 'fence test CA');
    untrust = certificate.untrust;
    server = createServer({ key: certificate.key, cert: certificate.cert }, (req, res) => {
      let body = '';
      req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      req.on('end', () => {
        received.push({ header: req.headers['x-api-key'] as string | undefined, body });
        // Never echo: the sandbox must not learn the real value from the response either.
        res.end('ok');
      });
    });
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    untrust();
    await new Promise(resolve => server.close(resolve));
  });

  it('swaps the placeholder for the real value on the way out, and stops once withdrawn', async () => {
    const runtime = srtRuntime();
    await runtime.ensure();
    const real = `sk-REAL-${randomBytes(12).toString('hex')}`;
    const placeholder = `aisdkhc_${randomBytes(16).toString('hex')}`;
    const credential = runtime.registerCredential({
      name: 'TEST_KEY',
      placeholder,
      realValue: real,
      hosts: ['127.0.0.1'],
    });
    const layout = sandboxLayout('cred', root.path);
    const spec = { layout, allowedDomains: [`127.0.0.1:${port}`], env: { TEST_KEY: placeholder } };
    // NO_PROXY names 127.0.0.1; --noproxy '' sends the request through srt's proxy all the same.
    const request = `curl -sS -m 20 --noproxy '' -H "x-api-key: $TEST_KEY" -d "{\\"key\\":\\"$TEST_KEY\\"}" https://127.0.0.1:${port}/`;
    try {
      const first = await runFenced(spec, `env | grep -c -- '${real}'; ${request}`);
      expect(first.stdout).toBe('0\nok');
      expect(received.at(-1)).toEqual({ header: real, body: `{"key":"${real}"}` });

      credential.withdraw();
      const second = await runFenced(spec, request);
      expect(second.stdout).toBe('ok');
      expect(received.at(-1)).toEqual({ header: placeholder, body: `{"key":"${placeholder}"}` });
    } finally {
      credential.withdraw();
    }
  });
});
