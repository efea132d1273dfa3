// Helpers for the fence tests: real directories and real fenced processes, removed afterwards.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import tls from 'node:tls';

import { launchFenced, type FenceSpec, type FencedProcess } from './launch-fenced.js';

export interface RunResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Collects a fenced process's output until it exits. */
export function collect(fenced: FencedProcess): Promise<RunResult> {
  const { child } = fenced;
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdin!.end();
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** Runs a bash script fenced by `spec` and returns what it printed. */
export async function runFenced(spec: FenceSpec, script: string): Promise<RunResult> {
  const fenced = await launchFenced(spec, ['bash', '-c', script]);
  try {
    return await collect(fenced);
  } finally {
    fenced.cleanup();
  }
}

/** A fresh directory under `parent` (not the host's /tmp, which is replaced inside the sandbox). */
export async function tempDir(
  parent = '/var/tmp',
  prefix = 'ai-sdk-fence-test-',
): Promise<{
  path: string;
  remove(): Promise<void>;
}> {
  const path = await mkdtemp(join(parent, prefix));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

/**
 * A throwaway certificate authority and a certificate it signed for the given IP addresses, made with
 * openssl in `directory`; trusted by this process until `untrust()`. srt's proxy checks the servers it
 * connects to with Node's default trust, so a test HTTPS server behind it needs both.
 */
export function trustedTestCertificate(
  directory: string,
  addresses: readonly string[],
  name = 'sandbox test CA',
): { key: Buffer; cert: Buffer; untrust(): void } {
  mkdirSync(directory, { recursive: true });
  const names = addresses.map(address => `IP:${address}`).join(',');
  writeFileSync(join(directory, 'leaf.ext'), `subjectAltName=${names}\nbasicConstraints=CA:FALSE\n`);
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: directory, stdio: 'ignore' });
  const key = (file: string) => ['-newkey', 'rsa:2048', '-nodes', '-keyout', file];
  ssl('req', '-x509', ...key('ca.key'), '-out', 'ca.crt', '-days', '1', '-subj', `/CN=${name}`);
  ssl('req', ...key('leaf.key'), '-out', 'leaf.csr', '-subj', `/CN=${addresses[0]}`);
  ssl(
    'x509',
    '-req',
    '-in',
    'leaf.csr',
    '-CA',
    'ca.crt',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'leaf.crt',
    '-days',
    '1',
    '-extfile',
    'leaf.ext',
  );
  const defaults = tls.getCACertificates('default');
  tls.setDefaultCACertificates([...defaults, readFileSync(join(directory, 'ca.crt'), 'utf8')]);
  return {
    key: readFileSync(join(directory, 'leaf.key')),
    cert: readFileSync(join(directory, 'leaf.crt')),
    untrust: () => tls.setDefaultCACertificates(defaults),
  };
}
