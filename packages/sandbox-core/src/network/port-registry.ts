/**
 * Leases real host TCP ports to sandbox sessions, so two live sessions are never handed the same
 * port, even when they live in different processes.
 *
 * The registry is a directory with one file per leased port, `<port>.lease`, holding who leased it.
 * The file is written under a temporary name and hard-linked into place: link() fails when the name
 * exists, so creating it is the lock, and readers never see a half-written lease. A lease whose
 * process is gone is stale and may be taken over.
 */
import { randomUUID } from 'node:crypto';
import { link, mkdir, readFile, readdir, rename, unlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { SandboxError, SandboxOptionsError } from '../errors.js';

export interface PortLease {
  readonly ports: readonly number[];
  /** Gives the ports back. Calling it again does nothing. */
  release(): Promise<void>;
}

export interface LeasePortsOptions {
  /** How many ports, 1 to 64. */
  readonly count: number;
  /** Who holds the lease (a sandbox id, say); written into the lease file for whoever debugs it. */
  readonly owner: string;
  /** The registry, e.g. `~/.ai-sdk-sandbox-local/ports`; created if missing. */
  readonly registryDirectory: string;
  /** Ports to try first, in order (a resumed sandbox wants its old ports back). */
  readonly preferred?: readonly number[];
  /** Pick the other ports at random from this range instead of asking the OS for free ones. */
  readonly range?: { readonly min: number; readonly max: number };
}

/** What a lease file holds. */
interface LeaseRecord {
  readonly pid: number;
  readonly owner: string;
  readonly createdAt: string;
  /** Tells two leases of one process apart (two bundled copies of this code, say). */
  readonly nonce: string;
  /** Boot and start time of the process, where known: a reused pid is not mistaken for the holder. */
  readonly processStart?: string;
}

const MAX_PORTS = 64;
const LEASE_SUFFIX = '.lease';

export async function leasePorts(options: LeasePortsOptions): Promise<PortLease> {
  validate(options);
  const directory = options.registryDirectory;
  await mkdir(directory, { recursive: true });

  const record: LeaseRecord = {
    pid: process.pid,
    owner: options.owner,
    createdAt: new Date().toISOString(),
    nonce: randomUUID(),
    processStart: await processStartOf(process.pid),
  };
  const content = JSON.stringify(record);
  const candidates = candidatePorts(options);
  const tried = new Set<number>();
  const leased: number[] = [];
  const maxAttempts = 100 + options.count * 20;

  try {
    for (let attempt = 0; leased.length < options.count; attempt++) {
      const port = attempt < maxAttempts ? await candidates.next() : undefined;
      if (port === undefined) {
        throw new SandboxError(
          `Could not lease ${options.count} free TCP port(s) on 127.0.0.1: found ${leased.length} after ` +
            `${attempt} attempts${options.range ? ` in the range ${options.range.min}-${options.range.max}` : ''}. ` +
            `Other programs or live sandboxes hold the rest: stop some of them${options.range ? ' or widen the range' : ''}. ` +
            `The leases are the files in ${directory}.`,
        );
      }
      if (tried.has(port)) continue;
      tried.add(port);
      if (await tryLease(directory, port, content)) leased.push(port);
    }
  } catch (error) {
    await removeOwnLeases(directory, leased, content);
    throw error;
  }

  let releasing: Promise<void> | undefined;
  return {
    ports: Object.freeze([...leased]),
    release: () => (releasing ??= removeOwnLeases(directory, leased, content)),
  };
}

/**
 * Removes the lease files of processes that are gone, and files left behind by a process that died
 * while writing or reclaiming one. Returns how many leases it removed. Leasing reclaims stale leases
 * by itself; this only tidies the directory.
 */
export async function releaseStaleLeases(registryDirectory: string): Promise<number> {
  let names: string[];
  try {
    names = await readdir(registryDirectory);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return 0;
    throw error;
  }
  let removed = 0;
  for (const name of names) {
    const path = join(registryDirectory, name);
    if (name.endsWith(LEASE_SUFFIX)) {
      const raw = await readText(path);
      if (raw !== undefined && (await isStale(raw))) {
        if (await reclaim(path, raw)) removed++;
      }
      continue;
    }
    // Leftovers are named `<port>.lease.<pid>.<uuid>.tmp|stale` and belong to a dead process or none.
    const leftover = /^\d+\.lease\.(\d+)\.[0-9a-f-]+\.(?:tmp|stale)$/.exec(name);
    if (leftover !== null && !isAlive(Number(leftover[1]))) await unlink(path).catch(() => undefined);
  }
  return removed;
}

function validate(options: LeasePortsOptions): void {
  const { count, preferred, range } = options;
  if (!Number.isInteger(count) || count < 1 || count > MAX_PORTS) {
    throw new SandboxOptionsError(`count must be an integer from 1 to ${MAX_PORTS}, got ${String(count)}.`);
  }
  if (typeof options.owner !== 'string') {
    throw new SandboxOptionsError('owner must be a string, such as the sandbox id.');
  }
  if (typeof options.registryDirectory !== 'string' || options.registryDirectory === '') {
    throw new SandboxOptionsError('registryDirectory must be the path of a directory.');
  }
  for (const port of preferred ?? []) {
    if (!isPort(port)) {
      throw new SandboxOptionsError(`preferred ports must be integers from 1 to 65535, got ${String(port)}.`);
    }
  }
  if (range !== undefined && !(isPort(range.min) && isPort(range.max) && range.min <= range.max)) {
    throw new SandboxOptionsError(
      `range must have integer min <= max, both from 1 to 65535, got ${String(range.min)}-${String(range.max)}.`,
    );
  }
}

function isPort(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= 1 && (value as number) <= 65535;
}

/** Preferred ports first, then random ones from the range, or free ones from the OS. */
function candidatePorts(options: LeasePortsOptions): { next(): Promise<number | undefined> } {
  const preferred = [...new Set(options.preferred ?? [])];
  const range = options.range;
  const drawn = new Set<number>();
  return {
    async next() {
      const first = preferred.shift();
      if (first !== undefined) return first;
      if (range === undefined) return await freePortFromOs();
      const size = range.max - range.min + 1;
      if (drawn.size >= size) return undefined;
      // Random draws while most of the range is untried; a scan for the last few.
      if (drawn.size < size / 2) {
        for (;;) {
          const port = range.min + Math.floor(Math.random() * size);
          if (!drawn.has(port)) return take(port);
        }
      }
      for (let port = range.min; port <= range.max; port++) if (!drawn.has(port)) return take(port);
      return undefined;
    },
  };
  function take(port: number): number {
    drawn.add(port);
    return port;
  }
}

async function freePortFromOs(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0 }, resolve);
  });
  const address = server.address();
  await new Promise(resolve => server.close(resolve));
  if (address === null || typeof address === 'string') {
    throw new SandboxError('The OS did not report the port of a TCP listener on 127.0.0.1.');
  }
  return address.port;
}

/** Whether a listener could take the port now, on the loopback and on all interfaces. */
async function isBindable(port: number): Promise<boolean> {
  // One host is not enough on macOS, where 127.0.0.1 and 0.0.0.0 may be bound apart.
  for (const host of ['127.0.0.1', '0.0.0.0']) {
    const server = createServer();
    const bound = await new Promise<boolean>(resolve => {
      server.once('error', () => resolve(false));
      server.listen({ host, port }, () => resolve(true));
    });
    if (bound) await new Promise(resolve => server.close(resolve));
    if (!bound) return false;
  }
  return true;
}

function leasePath(directory: string, port: number): string {
  return join(directory, `${port}${LEASE_SUFFIX}`);
}

/** A name beside `path` that no one else will pick, carrying our pid so leftovers can be tidied. */
function sideName(path: string, kind: 'tmp' | 'stale'): string {
  return `${path}.${process.pid}.${randomUUID()}.${kind}`;
}

/** Takes the lease file of `port` and checks nobody outside the registry listens on it. */
async function tryLease(directory: string, port: number, content: string): Promise<boolean> {
  const path = leasePath(directory, port);
  // A few rounds: the file may vanish or be reclaimed by someone else between our steps.
  for (let round = 0; round < 3; round++) {
    if (await createExclusive(path, content)) {
      if (await isBindable(port)) return true;
      await removeIfOurs(path, content);
      return false;
    }
    const existing = await readText(path);
    if (existing === undefined) continue; // released meanwhile: try again
    if (!(await isStale(existing))) return false;
    await reclaim(path, existing);
  }
  return false;
}

async function createExclusive(path: string, content: string): Promise<boolean> {
  const temporary = sideName(path, 'tmp');
  await writeFile(temporary, content, { flag: 'wx' });
  try {
    await link(temporary, path);
    return true;
  } catch (error) {
    if (errorCode(error) === 'EEXIST') return false;
    throw new SandboxError(
      `Could not create the port lease ${path}: ${String(error)}. The port registry needs a directory ` +
        'on a local filesystem that supports hard links.',
      { cause: error },
    );
  } finally {
    await unlink(temporary).catch(() => undefined);
  }
}

/**
 * Removes a stale lease without racing another reclaimer: the file is first renamed to a name of our
 * own, so only one of them gets it, and is then checked again, since it might be a live lease created
 * after we read the stale one. A live one is linked back, unless a newer lease took its place.
 * Returns whether the stale lease was removed by us.
 */
async function reclaim(path: string, staleContent: string): Promise<boolean> {
  const aside = sideName(path, 'stale');
  try {
    await rename(path, aside);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return false; // someone else reclaimed or released it
    throw error;
  }
  const moved = await readText(aside);
  if (moved !== staleContent) await link(aside, path).catch(() => undefined);
  await unlink(aside).catch(() => undefined);
  return moved === staleContent;
}

async function removeOwnLeases(directory: string, ports: readonly number[], content: string): Promise<void> {
  await Promise.all(ports.map(port => removeIfOurs(leasePath(directory, port), content)));
}

async function removeIfOurs(path: string, content: string): Promise<void> {
  if ((await readText(path)) !== content) return;
  await unlink(path).catch(() => undefined);
}

async function readText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined;
    throw error;
  }
}

/** A lease is stale when its process is gone: no such pid, or a pid since reused by another process. */
async function isStale(content: string): Promise<boolean> {
  let record: Partial<LeaseRecord> | null;
  try {
    record = JSON.parse(content) as Partial<LeaseRecord> | null;
  } catch {
    return true; // not written by this code (files appear whole, through link())
  }
  if (typeof record !== 'object' || record === null) return true;
  if (typeof record.pid !== 'number' || !Number.isInteger(record.pid) || record.pid <= 0) return true;
  if (!isAlive(record.pid)) return true;
  if (typeof record.processStart === 'string') {
    const current = await processStartOf(record.pid);
    if (current !== undefined && current !== record.processStart) return true;
  }
  return false;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errorCode(error) === 'EPERM'; // exists, but belongs to someone else
  }
}

/** `<boot id>:<start time>` on Linux; undefined where /proc is not there to say. */
async function processStartOf(pid: number): Promise<string | undefined> {
  if (process.platform !== 'linux') return undefined;
  try {
    const [bootId, stat] = await Promise.all([
      readFile('/proc/sys/kernel/random/boot_id', 'utf8'),
      readFile(`/proc/${pid}/stat`, 'utf8'),
    ]);
    // Field 22 (start time); counted from after the command name, which may hold spaces.
    const startTime = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
    return startTime === undefined ? undefined : `${bootId.trim()}:${startTime}`;
  } catch {
    return undefined;
  }
}

function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : undefined;
}
