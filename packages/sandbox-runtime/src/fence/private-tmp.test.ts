import { describe, expect, it } from 'vitest';

import { privatizeTmp } from './private-tmp.js';
import { quoteWords, splitShellWords } from './shell-words.js';

const sock = '/tmp/claude-http-0123abcd.sock';
const ca = ['/tmp/srt-ca-AAAA/ca.crt', '/tmp/srt-ca-BBBB/trust-bundle.crt'];
const inner = `/usr/bin/bash -c 'socat … UNIX-CONNECT:${sock} & apply-seccomp /usr/bin/bash -c "node s.js"'`;

// The shape of srt 0.0.83's Linux wrap (see srt-notes §1).
const srtWords = [
  'bwrap',
  '--new-session',
  '--die-with-parent',
  '--unshare-net',
  '--bind',
  sock,
  sock,
  '--setenv',
  'TMPDIR',
  '/tmp/claude',
  '--setenv',
  'NODE_EXTRA_CA_CERTS',
  ca[1]!,
  '--ro-bind',
  '/',
  '/',
  '--bind',
  '/srv/box/sandbox',
  '/srv/box/sandbox',
  '--tmpfs',
  '/home/me',
  '--tmpfs',
  '/tmp/denied-by-user',
  '--ro-bind',
  '/dev/null',
  '/tmp/mandatory-deny',
  '--dev',
  '/dev',
  '--unshare-pid',
  '--unshare-user',
  '--cap-drop',
  'ALL',
  '--proc',
  '/proc',
  '--unsetenv',
  'SRT_ALLOW_NESTED_USERNS',
  '--',
  '/usr/bin/bash',
  '-c',
  inner,
];

describe('privatizeTmp', () => {
  it("binds the sandbox's tmp on /tmp right after the root bind, and srt's own /tmp files on top", () => {
    const edit = privatizeTmp(quoteWords(srtWords), '/srv/box/sandbox/tmp', ca);
    expect(edit?.privateTmp).toBe(true);
    const words = splitShellWords(edit!.command)!;
    const root = words.indexOf('/', words.indexOf('--ro-bind')) + 2;
    expect(words.slice(0, root)).toEqual(srtWords.slice(0, root));
    expect(words.slice(root, root + 15)).toEqual([
      '--bind',
      '/srv/box/sandbox/tmp',
      '/tmp',
      '--bind',
      sock,
      sock,
      '--ro-bind-try',
      ca[0],
      ca[0],
      '--ro-bind-try',
      ca[1],
      ca[1],
      '--setenv',
      'TMPDIR',
      '/tmp',
    ]);
    // Every mount srt placed after its root bind, the denies under /tmp included, still comes after ours.
    expect(words.slice(root + 15)).toEqual(srtWords.slice(root));
    expect(edit!.privateTmp && edit!.stubs).toEqual([
      '/srv/box/sandbox/tmp/claude-http-0123abcd.sock',
      '/srv/box/sandbox/tmp/srt-ca-AAAA/ca.crt',
      '/srv/box/sandbox/tmp/srt-ca-BBBB/trust-bundle.crt',
      '/srv/box/sandbox/tmp/denied-by-user',
      '/srv/box/sandbox/tmp/mandatory-deny',
    ]);
  });

  it('leaves the command after the separator untouched', () => {
    const edit = privatizeTmp(quoteWords(srtWords), '/t', []);
    expect(splitShellWords(edit!.command)!.at(-1)).toBe(inner);
  });

  it('only sets TMPDIR when srt passed its mounts through a file', () => {
    const viaFile = [
      '/bin/sh',
      '-c',
      'exec 9<"$1" && shift && exec "$@"',
      'srt-args',
      '/proc/42/fd/20',
      'bwrap',
      '--new-session',
      '--bind',
      sock,
      sock,
      '--setenv',
      'TMPDIR',
      '/tmp/claude',
      '--args',
      '9',
      '--dev',
      '/dev',
      '--proc',
      '/proc',
      '--',
      '/usr/bin/bash',
      '-c',
      inner,
    ];
    const edit = privatizeTmp(quoteWords(viaFile), '/srv/box/sandbox/tmp', ca);
    expect(edit).toMatchObject({ privateTmp: false });
    const words = splitShellWords(edit!.command)!;
    const separator = words.indexOf('--');
    expect(words.slice(separator - 3, separator)).toEqual(['--setenv', 'TMPDIR', '/srv/box/sandbox/tmp']);
    expect(words.slice(0, separator - 3)).toEqual(viaFile.slice(0, viaFile.indexOf('--')));
  });

  it('gives up on a command it does not understand rather than guess', () => {
    expect(privatizeTmp('bwrap --new-option x --ro-bind / / -- true', '/t')).toBeUndefined();
    expect(privatizeTmp('sandbox-exec -p profile bash -c true', '/t')).toBeUndefined();
    expect(privatizeTmp('bwrap --ro-bind / / $(evil) -- true', '/t')).toBeUndefined();
    expect(privatizeTmp('bwrap --ro-bind /', '/t')).toBeUndefined();
  });
});
