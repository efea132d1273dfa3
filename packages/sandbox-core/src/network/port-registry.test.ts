import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SandboxError, SandboxOptionsError } from '../errors.js';
import { leasePorts, releaseStaleLeases, type PortLease } from './port-registry.js';

const root = mkdtempSync(join(tmpdir(), 'port-registry-test-'));
let registryCount = 0;
const leases: PortLease[] = [];
const servers: Server[] = [];
const children: ChildProcess[] = [];

afterEach(async () => {
  await Promise.all(leases.splice(0).map(lease => lease.release()));
  await Promise.all(servers.splice(0).map(server => new Promise(resolve => server.close(resolve))));
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

function newRegistry(): string {
  return join(root, `registry-${++registryCount}`);
}

/** A registry directory that exists already, for tests that plant lease files in it. */
function existingRegistry(): string {
  const directory = newRegistry();
  mkdirSync(directory);
  return directory;
}

/**
 * A range of `size` ports below the OS's ephemeral ports, at a random place so parallel runs rarely
 * meet; a few of them may be in use, which the registry skips.
 */
function quietRange(size: number): { min: number; max: number } {
  const min = 20_000 + Math.floor(Math.random() * (10_000 - size));
  return { min, max: min + size - 1 };
}

async function lease(options: Parameters<typeof leasePorts>[0]): Promise<PortLease> {
  const result = await leasePorts(options);
  leases.push(result);
  return result;
}

/** Ports the OS hands out as free right now. */
async function freePorts(count: number): Promise<number[]> {
  const held = await Promise.all(Array.from({ length: count }, () => listen(0)));
  const ports = held.map(server => (server.address() as { port: number }).port);
  await Promise.all(held.map(server => new Promise(resolve => server.close(resolve))));
  return ports;
}

async function listen(port: number, host = '127.0.0.1'): Promise<Server> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port }, resolve);
  });
  return server;
}

function leaseFiles(directory: string): string[] {
  return readdirSync(directory).sort();
}

/** The pid of a process that has exited (and been reaped), so nothing holds it. */
function deadPid(): number {
  const result = spawnSync('true');
  return result.pid!;
}

function writeLease(directory: string, port: number, record: object): void {
  writeFileSync(join(directory, `${port}.lease`), JSON.stringify(record));
}

describe('leasePorts', () => {
  it('hands out distinct ports to concurrent leases', async () => {
    const registryDirectory = newRegistry();
    const all = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        lease({ count: 3, owner: `sandbox-${index}`, registryDirectory }),
      ),
    );
    const ports = all.flatMap(each => each.ports);
    expect(ports).toHaveLength(60);
    expect(new Set(ports).size).toBe(60);
    expect(leaseFiles(registryDirectory)).toEqual(ports.map(port => `${port}.lease`).sort());
    const record = JSON.parse(readFileSync(join(registryDirectory, `${all[7]!.ports[0]}.lease`), 'utf8'));
    expect(record).toMatchObject({ pid: process.pid, owner: 'sandbox-7' });
  });

  it('hands out distinct ports from a small range under contention', async () => {
    const registryDirectory = newRegistry();
    const range = quietRange(30);
    const all = await Promise.all(
      Array.from({ length: 6 }, () => lease({ count: 3, owner: 'ranged', registryDirectory, range })),
    );
    const ports = all.flatMap(each => each.ports);
    expect(new Set(ports).size).toBe(18);
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(range.min);
      expect(port).toBeLessThanOrEqual(range.max);
    }
  });

  it('returns the preferred ports when they are free', async () => {
    const registryDirectory = newRegistry();
    const preferred = await freePorts(2);
    const result = await lease({ count: 3, owner: 'resumed', registryDirectory, preferred });
    expect(result.ports.slice(0, 2)).toEqual(preferred);
    expect(result.ports).toHaveLength(3);
    expect(new Set(result.ports).size).toBe(3);
  });

  it('skips a port that a program outside the registry listens on', async () => {
    const registryDirectory = newRegistry();
    const outside = await listen(0);
    servers.push(outside);
    const taken = (outside.address() as { port: number }).port;

    const result = await lease({ count: 1, owner: 'a', registryDirectory, preferred: [taken] });
    expect(result.ports).not.toContain(taken);
    expect(leaseFiles(registryDirectory)).toEqual([`${result.ports[0]}.lease`]);
  });

  it('skips a port that a listener on all interfaces holds', async () => {
    const registryDirectory = newRegistry();
    const outside = await listen(0, '0.0.0.0');
    servers.push(outside);
    const taken = (outside.address() as { port: number }).port;

    const result = await lease({ count: 1, owner: 'a', registryDirectory, preferred: [taken] });
    expect(result.ports).not.toContain(taken);
  });

  it('does not hand out a port leased by another live process', async () => {
    const registryDirectory = existingRegistry();
    const [port] = await freePorts(1);
    const holder = spawn('sleep', ['1000'], { stdio: 'ignore' });
    children.push(holder);
    writeLease(registryDirectory, port!, {
      pid: holder.pid,
      owner: 'other',
      createdAt: new Date().toISOString(),
    });

    const result = await lease({ count: 1, owner: 'a', registryDirectory, preferred: [port!] });
    expect(result.ports).not.toContain(port);
    expect(JSON.parse(readFileSync(join(registryDirectory, `${port}.lease`), 'utf8'))).toMatchObject({
      pid: holder.pid,
      owner: 'other',
    });
  });

  it('reclaims the lease of a process that is gone', async () => {
    const registryDirectory = existingRegistry();
    const [port] = await freePorts(1);
    writeLease(registryDirectory, port!, {
      pid: deadPid(),
      owner: 'crashed',
      createdAt: new Date().toISOString(),
    });

    const result = await lease({ count: 1, owner: 'new', registryDirectory, preferred: [port!] });
    expect(result.ports).toEqual([port]);
    expect(JSON.parse(readFileSync(join(registryDirectory, `${port}.lease`), 'utf8'))).toMatchObject({
      pid: process.pid,
      owner: 'new',
    });
    expect(leaseFiles(registryDirectory)).toEqual([`${port}.lease`]);
  });

  it.runIf(process.platform === 'linux')(
    'reclaims a lease whose pid now belongs to another process',
    async () => {
      const registryDirectory = existingRegistry();
      const [port] = await freePorts(1);
      const stranger = spawn('sleep', ['1000'], { stdio: 'ignore' });
      children.push(stranger);
      // The lease was written by an earlier process that had the same pid: its start time differs.
      const bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
      writeLease(registryDirectory, port!, {
        pid: stranger.pid,
        owner: 'earlier',
        createdAt: new Date().toISOString(),
        processStart: `${bootId}:1`,
      });

      const result = await lease({ count: 1, owner: 'new', registryDirectory, preferred: [port!] });
      expect(result.ports).toEqual([port]);
    },
  );

  it('gives released ports to the next lease', async () => {
    const registryDirectory = newRegistry();
    const first = await lease({ count: 2, owner: 'first', registryDirectory });
    const second = await lease({ count: 2, owner: 'second', registryDirectory, preferred: first.ports });
    expect(second.ports.some(port => first.ports.includes(port))).toBe(false);

    await first.release();
    const third = await lease({ count: 2, owner: 'third', registryDirectory, preferred: first.ports });
    expect(third.ports).toEqual(first.ports);
  });

  it('releases idempotently, never removing a lease that is no longer its own', async () => {
    const registryDirectory = newRegistry();
    const first = await lease({ count: 1, owner: 'first', registryDirectory });
    await Promise.all([first.release(), first.release()]);
    expect(leaseFiles(registryDirectory)).toEqual([]);

    const second = await lease({ count: 1, owner: 'second', registryDirectory, preferred: first.ports });
    expect(second.ports).toEqual(first.ports);
    await first.release();
    expect(leaseFiles(registryDirectory)).toEqual([`${first.ports[0]}.lease`]);
  });

  it('fails with a SandboxError, leaving nothing behind, when no port can be leased', async () => {
    const registryDirectory = newRegistry();
    const outside = await listen(0);
    servers.push(outside);
    const taken = (outside.address() as { port: number }).port;
    const [free] = await freePorts(1);
    // The range holds only the port that is taken; the free preferred port alone is not enough.
    const range = { min: taken, max: taken };
    await expect(leasePorts({ count: 1, owner: 'a', registryDirectory, range })).rejects.toThrow(
      SandboxError,
    );
    const tooFew = leasePorts({ count: 2, owner: 'a', registryDirectory, preferred: [free!], range });
    await expect(tooFew).rejects.toThrow(/Could not lease 2 free TCP port/);
    expect(leaseFiles(registryDirectory)).toEqual([]);
  });

  it('rejects a count outside 1..64 and bad ports with a SandboxOptionsError', async () => {
    const registryDirectory = newRegistry();
    for (const count of [0, 65, 1.5, Number.NaN]) {
      await expect(leasePorts({ count, owner: 'a', registryDirectory })).rejects.toThrow(SandboxOptionsError);
    }
    await expect(leasePorts({ count: 1, owner: 'a', registryDirectory, preferred: [70000] })).rejects.toThrow(
      SandboxOptionsError,
    );
    await expect(
      leasePorts({ count: 1, owner: 'a', registryDirectory, range: { min: 5000, max: 4000 } }),
    ).rejects.toThrow(SandboxOptionsError);
  });
});

describe('releaseStaleLeases', () => {
  it('removes the leases of gone processes and keeps live ones', async () => {
    const registryDirectory = newRegistry();
    const live = await lease({ count: 1, owner: 'live', registryDirectory });
    writeLease(registryDirectory, 1, { pid: deadPid(), owner: 'gone', createdAt: new Date().toISOString() });
    writeFileSync(
      join(registryDirectory, `2.lease.${deadPid()}.6f1c2a8e-0000-4000-8000-000000000000.tmp`),
      '',
    );

    expect(await releaseStaleLeases(registryDirectory)).toBe(1);
    expect(leaseFiles(registryDirectory)).toEqual([`${live.ports[0]}.lease`]);
  });

  it('returns 0 for a registry that does not exist yet', async () => {
    expect(await releaseStaleLeases(newRegistry())).toBe(0);
  });
});

describe('leasePorts across processes', () => {
  // A child process runs the TypeScript module itself: Node strips the types, and a resolve hook maps
  // the `.js` specifiers of the sources to their `.ts` files.
  const childScript = join(root, 'lease-child.mjs');
  const moduleUrl = new URL('./port-registry.ts', import.meta.url).href;

  beforeAll(() => {
    writeFileSync(
      childScript,
      `
import { existsSync } from 'node:fs';
import { registerHooks } from 'node:module';
registerHooks({
  resolve(specifier, context, nextResolve) {
    if (specifier.startsWith('.') && specifier.endsWith('.js') && context.parentURL?.endsWith('.ts')) {
      const source = new URL(specifier.slice(0, -3) + '.ts', context.parentURL);
      if (existsSync(source)) return nextResolve(source.href, context);
    }
    return nextResolve(specifier, context);
  },
});
const [moduleUrl, registryDirectory, leaseCount, count, min, max] = process.argv.slice(2);
const { leasePorts } = await import(moduleUrl);
const range = { min: Number(min), max: Number(max) };
const held = await Promise.all(
  Array.from({ length: Number(leaseCount) }, (_, index) =>
    leasePorts({ count: Number(count), owner: 'child-' + process.pid + '-' + index, registryDirectory, range }),
  ),
);
process.stdout.write(JSON.stringify(held.flatMap(lease => lease.ports)) + '\\n');
// Hold the ports until the test closes our stdin.
process.stdin.resume();
process.stdin.on('end', async () => {
  await Promise.all(held.map(lease => lease.release()));
  process.exit(0);
});
`,
    );
  });

  function startChild(args: string[]): {
    ports: Promise<number[]>;
    exited: Promise<number | null>;
    child: ChildProcess;
  } {
    const child = spawn(
      process.execPath,
      ['--experimental-transform-types', '--no-warnings', childScript, moduleUrl, ...args],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    );
    children.push(child);
    const lines = createInterface({ input: child.stdout! });
    const ports = new Promise<number[]>((resolve, reject) => {
      lines.once('line', line => resolve(JSON.parse(line) as number[]));
      child.once('exit', code => reject(new Error(`lease child exited with ${code} before leasing`)));
    });
    const exited = new Promise<number | null>(resolve => child.once('exit', resolve));
    return { ports, exited, child };
  }

  it('never hands the same port to two processes', async () => {
    const registryDirectory = newRegistry();
    // 48 ports from a range of 64: without a shared registry random picks would collide.
    const { min, max } = quietRange(64);
    const started = [1, 2, 3].map(() => startChild([registryDirectory, '4', '3', String(min), String(max)]));
    const own = await Promise.all(
      Array.from({ length: 4 }, () =>
        lease({ count: 3, owner: 'parent', registryDirectory, range: { min, max } }),
      ),
    );

    const perProcess = [
      ...(await Promise.all(started.map(each => each.ports))),
      own.flatMap(each => each.ports),
    ];
    const all = perProcess.flat();
    expect(perProcess.map(ports => ports.length)).toEqual([12, 12, 12, 12]);
    expect(new Set(all).size).toBe(48);
    const owners = new Set(
      all.map(
        port => JSON.parse(readFileSync(join(registryDirectory, `${port}.lease`), 'utf8')).pid as number,
      ),
    );
    expect(owners.size).toBe(4);

    for (const each of started) each.child.stdin!.end();
    expect(await Promise.all(started.map(each => each.exited))).toEqual([0, 0, 0]);
    expect(leaseFiles(registryDirectory).length).toBe(12);
  });

  it('reclaims the leases of a process that was killed', async () => {
    const registryDirectory = newRegistry();
    const { min, max } = quietRange(4);
    const victim = startChild([registryDirectory, '1', '4', String(min), String(max)]);
    const ports = await victim.ports;
    victim.child.kill('SIGKILL');
    await victim.exited;
    expect(leaseFiles(registryDirectory)).toHaveLength(4);

    const result = await lease({ count: 4, owner: 'after', registryDirectory, range: { min, max } });
    expect([...result.ports].sort((a, b) => a - b)).toEqual([...ports].sort((a, b) => a - b));
  });
});
