// Real bubblewrap through srt: what a fenced process can read, write and see.
import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

import { SandboxManager } from '@anthropic-ai/sandbox-runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { collect, runFenced, tempDir } from './fence-test-support.js';
import { launchFenced } from './launch-fenced.js';
import { ensureLayout, sandboxLayout, type SandboxLayout } from './layout.js';

const id = () => randomBytes(6).toString('hex');

let root: Awaited<ReturnType<typeof tempDir>>;
let layout: SandboxLayout;
const homeLeftovers: string[] = [];

beforeAll(async () => {
  root = await tempDir();
  layout = sandboxLayout('fs', root.path);
  await ensureLayout(layout);
  writeFileSync(layout.settingsFile, '{"sandboxId":"fs"}');
  writeFileSync(join(layout.supervisorDir, 'supervisor.js'), 'process.stdout.write("supervised")');
});

afterAll(async () => {
  for (const path of homeLeftovers) rmSync(path, { recursive: true, force: true });
  await root.remove();
});

/** A path in the real home, removed after the tests. */
function inHome(name: string): string {
  const path = join(homedir(), name);
  homeLeftovers.push(path);
  return path;
}

describe('launchFenced', () => {
  it('keeps stdout for the process alone and stdin as a pipe', async () => {
    const fenced = await launchFenced({ layout }, ['bash', '-c', 'read -r line; printf "got:%s" "$line"']);
    fenced.child.stdin!.write('ping\n');
    const result = await collect(fenced);
    expect(result).toMatchObject({ code: 0, stdout: 'got:ping' });
  });

  it('starts from an environment of its own', async () => {
    process.env.HOST_SECRET = `host-secret-${id()}`;
    try {
      const result = await runFenced({ layout, env: { FROM_SPEC: 'yes' } }, 'env');
      expect(result.code).toBe(0);
      const env = Object.fromEntries(
        result.stdout
          .trim()
          .split('\n')
          .map(line => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
      );
      expect(result.stdout).not.toContain(process.env.HOST_SECRET);
      expect(env).not.toHaveProperty('HOST_SECRET');
      expect(env).toMatchObject({
        HOME: layout.home,
        TMPDIR: '/tmp',
        SHELL: '/bin/bash',
        NODE_USE_ENV_PROXY: '1',
        IS_SANDBOX: '1',
        COREPACK_DEFAULT_TO_LATEST: '0',
        FROM_SPEC: 'yes',
      });
      expect(env.PATH!.split(':')[0]).toBe(join(layout.home, '.local', 'bin'));
      // srt's proxy is the way out.
      expect(env.HTTPS_PROXY).toMatch(/^http:\/\/srt\..*@localhost:3128$/);
    } finally {
      delete process.env.HOST_SECRET;
    }
  });

  it('runs in the workspace', async () => {
    const result = await runFenced({ layout }, 'pwd');
    expect(result.stdout.trim()).toBe(layout.workspace);
  });

  it('gives the sandbox a /tmp of its own, in its directory, where mktemp works', async () => {
    const name = `fence-tmp-${id()}`;
    const result = await runFenced({ layout }, `echo inside > /tmp/${name} && mktemp && mktemp -d`);
    expect(result.code).toBe(0);
    const [file, dir] = result.stdout.trim().split('\n');
    expect(file).toMatch(/^\/tmp\/tmp\./);
    expect(readFileSync(join(layout.tmp, name), 'utf8')).toBe('inside\n');
    expect(existsSync(join(layout.tmp, file!.slice('/tmp/'.length)))).toBe(true);
    expect(existsSync(join(layout.tmp, dir!.slice('/tmp/'.length)))).toBe(true);
    // The host's /tmp saw none of it.
    expect(existsSync(join(tmpdir(), name))).toBe(false);
    expect(existsSync(join('/tmp', name))).toBe(false);
  });

  it("does not show the host's /tmp, nor another sandbox's", async () => {
    const hostFile = join('/tmp', `fence-host-${id()}`);
    writeFileSync(hostFile, 'host');
    const other = sandboxLayout('other', root.path);
    await ensureLayout(other);
    writeFileSync(join(other.tmp, 'theirs'), 'other sandbox');
    try {
      const result = await runFenced({ layout }, `ls -A /tmp; cat ${hostFile} /tmp/theirs`);
      expect(result.code).not.toBe(0);
      expect(result.stdout).not.toContain('theirs');
      expect(result.stdout).not.toContain(hostFile.slice(5));
    } finally {
      rmSync(hostFile, { force: true });
    }
  });

  it("keeps srt's CA certificate readable inside and its private key out of reach", async () => {
    const ca = SandboxManager.getMitmCA()!;
    const result = await runFenced(
      { layout },
      `test -r "$NODE_EXTRA_CA_CERTS" && test -r ${ca.certPath} && echo certs-ok; cat ${ca.keyPath} && echo key-read`,
    );
    expect(result.stdout).toContain('certs-ok');
    expect(result.stdout).not.toContain('key-read');
    // bwrap's mount points in the sandbox's /tmp are removed once it has exited.
    expect(
      readdirSync(layout.tmp).filter(name => name.startsWith('srt-ca-') || name.startsWith('claude-http-')),
    ).toEqual([]);
  });

  it("works on a workspace in the host's /tmp, under the sandbox's own /tmp", async () => {
    const host = await tempDir('/tmp', 'ai-sdk-fence-ws-');
    try {
      writeFileSync(join(host.path, 'input'), 'from host');
      const result = await runFenced(
        { layout, workspace: host.path },
        `pwd; cat input; echo out > output; echo private > /tmp/next-to-it`,
      );
      expect(result).toMatchObject({ code: 0, stdout: `${host.path}\nfrom host` });
      expect(readFileSync(join(host.path, 'output'), 'utf8')).toBe('out\n');
      expect(readFileSync(join(layout.tmp, 'next-to-it'), 'utf8')).toBe('private\n');
      // The mount point bwrap made for the workspace in the sandbox's /tmp is gone with it.
      expect(existsSync(join(layout.tmp, host.path.slice('/tmp/'.length)))).toBe(false);
    } finally {
      await host.remove();
    }
  });

  it('writes only to its own directory and its workspace', async () => {
    // Beside the sandboxes' directory: inside it, the other sandboxes are hidden behind an empty tmpfs.
    const outside = join(dirname(root.path), `outside-${id()}`);
    const result = await runFenced(
      { layout },
      [
        `echo ok > ${layout.workspace}/w && echo workspace-ok`,
        `echo ok > ${layout.home}/h && echo home-ok`,
        `echo ok > ${outside} && echo outside-written`,
        `echo ok > /etc/fence-test && echo etc-written`,
        `echo ok >> ${layout.settingsFile} && echo settings-written`,
        `echo ok > ${layout.supervisorDir}/x && echo supervisor-written`,
        `grep -q sandboxId ${layout.settingsFile} && echo settings-read`,
        `node ${layout.supervisorDir}/supervisor.js`,
      ].join('; '),
    );
    expect(result.stdout).toContain('workspace-ok');
    expect(result.stdout).toContain('home-ok');
    // sandbox.json is out of its reach: it holds the real values of the env's credentials. (What
    // the sandbox writes at its path lands in the empty tmpfs hiding the sandboxes' directory.)
    expect(result.stdout).not.toContain('settings-read');
    expect(result.stdout).toContain('supervised');
    for (const refused of ['outside-written', 'etc-written', 'supervisor-written']) {
      expect(result.stdout).not.toContain(refused);
    }
    expect(existsSync(outside)).toBe(false);
    expect(existsSync('/etc/fence-test')).toBe(false);
    expect(readFileSync(layout.settingsFile, 'utf8')).toBe('{"sandboxId":"fs"}');
    expect(existsSync(join(layout.supervisorDir, 'x'))).toBe(false);
  });

  it('reads readOnlyWorkspaces without writing them, and honours denyWrite', async () => {
    const docs = join(root.path, 'docs');
    mkdirSync(docs, { recursive: true });
    writeFileSync(join(docs, 'readme'), 'docs');
    const hooks = join(layout.workspace, 'hooks');
    mkdirSync(hooks, { recursive: true });
    const result = await runFenced(
      { layout, readOnlyWorkspaces: [docs], denyWrite: [hooks] },
      `cat ${docs}/readme; echo x > ${docs}/new && echo docs-written; echo x > ${hooks}/pre && echo hook-written`,
    );
    expect(result.stdout).toContain('docs');
    expect(result.stdout).not.toContain('docs-written');
    expect(result.stdout).not.toContain('hook-written');
    expect(existsSync(join(docs, 'new'))).toBe(false);
    expect(existsSync(join(hooks, 'pre'))).toBe(false);
  });

  it('hides the home directory unless allowRead re-opens a part of it', async () => {
    const secret = inHome(`.ai-sdk-sandbox-test-secret-${id()}`);
    writeFileSync(secret, 'secret');
    const opened = inHome(`.ai-sdk-sandbox-test-open-${id()}`);
    mkdirSync(opened);
    writeFileSync(join(opened, 'tool'), 'tool');
    const result = await runFenced(
      { layout, allowRead: [opened] },
      `ls -A ${homedir()}; cat ${secret} && echo secret-read; cat ${opened}/tool; echo x > ${homedir()}/dropped`,
    );
    expect(result.stdout).not.toContain('secret');
    expect(result.stdout.split('\n')).toContain(opened.slice(homedir().length + 1));
    expect(result.stdout).toContain('tool');
    // What it writes to the hidden home is gone with it.
    expect(existsSync(join(homedir(), 'dropped'))).toBe(false);

    const open = await runFenced({ layout, hideHome: false }, `cat ${secret}`);
    expect(open.stdout).toBe('secret');
  });

  it('runs a node installed under the hidden home and a sandbox kept in the home', async () => {
    // A node "installed" in the home: a hard link keeps it cheap and its real path in the home.
    const prefix = inHome(`.ai-sdk-sandbox-test-node-${id()}`);
    mkdirSync(join(prefix, 'bin'), { recursive: true });
    const nodePath = join(prefix, 'bin', 'node');
    linkSync(process.execPath, nodePath);
    const inHomeDir = inHome(`.ai-sdk-sandbox-test-dir-${id()}`);
    const homeLayout = sandboxLayout('in-home', inHomeDir);
    await ensureLayout(homeLayout);
    writeFileSync(
      join(homeLayout.supervisorDir, 'supervisor.js'),
      'process.stdout.write("supervised " + process.version)',
    );
    const fenced = await launchFenced({ layout: homeLayout, nodePath }, [
      nodePath,
      join(homeLayout.supervisorDir, 'supervisor.js'),
    ]);
    expect(fenced.config.reopenedPaths).toEqual([prefix]);
    const result = await collect(fenced);
    expect(result).toMatchObject({ code: 0, stdout: `supervised ${process.version}` });
    expect(dirname(homeLayout.sandboxDir)).toBe(inHomeDir);
  });

  it("hides the host's D-Bus and blocks Unix sockets by default", async () => {
    const result = await runFenced(
      { layout },
      `ls -A /run/dbus 2>/dev/null | wc -l; node -e "require('net').createServer().on('error', e => { console.log(e.code); process.exit(0) }).listen('/tmp/s.sock', () => console.log('listening'))"`,
    );
    expect(result.stdout.split('\n')[0]).toBe('0');
    expect(result.stdout).toContain('EPERM');
    expect(result.stdout).not.toContain('listening');
  });

  it('ends the whole sandbox on cleanup()', async () => {
    const marker = `fence-marker-${id()}`;
    const fenced = await launchFenced({ layout }, ['bash', '-c', `exec -a ${marker} sleep 1000`]);
    const alive = () =>
      readdirSync('/proc')
        .filter(name => /^\d+$/.test(name))
        .some(pid => {
          try {
            return readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith(marker);
          } catch {
            return false;
          }
        });
    await expect.poll(alive, { timeout: 10_000 }).toBe(true);
    const exited = new Promise(resolve => fenced.child.once('exit', resolve));
    fenced.cleanup();
    await exited;
    await expect.poll(alive, { timeout: 10_000 }).toBe(false);
  });
});
