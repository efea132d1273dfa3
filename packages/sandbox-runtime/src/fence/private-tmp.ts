import { quoteWords, splitShellWords } from './shell-words.js';

/*
 * srt leaves /tmp read-only (the host's, through its `--ro-bind / /`) and has no option to give a
 * sandbox a /tmp of its own. So the bwrap command srt builds is edited: right after the root bind,
 *
 *   --bind <sandbox>/tmp /tmp
 *
 * Every mount srt puts after the root bind (its write binds, its read and write denies, a denied
 * path under /tmp included) still comes after ours and applies on top of it, so no rule of srt's
 * is undone. Only what srt relies on seeing through the root bind in the host's /tmp would be
 * lost, so it is bound again on top of ours:
 *   - the binds srt places *before* the root bind with a target under /tmp (its proxy socket
 *     /tmp/claude-http-*.sock; those binds are shadowed by the root bind anyway and work only
 *     because the host's /tmp shows through);
 *   - `keepPaths`: the files its variables point at, such as the TLS-termination CA certificate
 *     and trust bundle under /tmp/srt-ca-*. Files, not their directories: the CA's private key
 *     sits next to its certificate and stays out of reach (srt alone leaves it readable).
 * TMPDIR is set to /tmp after srt's own `--setenv TMPDIR /tmp/claude`, which does not exist.
 *
 * bwrap creates the mount points of these binds in <sandbox>/tmp, and of srt's later mounts under
 * /tmp (a workspace in the host's /tmp, say); `stubs` lists them, to remove once they are empty.
 *
 * The edit needs the bwrap words, so it reads srt's command back (see shell-words.ts) and walks
 * bwrap's options by their arity. When srt passed its mounts through a file (`--args`, only for a
 * profile too long for one argument), the root bind is not on the command line: then /tmp stays
 * read-only and only TMPDIR is set, to the sandbox's tmp directory by its host path.
 */

// bwrap 0.8 options by the number of values they take; an option not listed stops the edit.
const ARITY: Record<string, number> = {};
for (const option of [
  '--unshare-all',
  '--share-net',
  '--unshare-user',
  '--unshare-user-try',
  '--unshare-ipc',
  '--unshare-pid',
  '--unshare-net',
  '--unshare-uts',
  '--unshare-cgroup',
  '--unshare-cgroup-try',
  '--disable-userns',
  '--assert-userns-disabled',
  '--clearenv',
  '--new-session',
  '--die-with-parent',
  '--as-pid-1',
])
  ARITY[option] = 0;
for (const option of [
  '--args',
  '--userns',
  '--userns2',
  '--pidns',
  '--uid',
  '--gid',
  '--hostname',
  '--chdir',
  '--unsetenv',
  '--lock-file',
  '--sync-fd',
  '--remount-ro',
  '--exec-label',
  '--file-label',
  '--proc',
  '--dev',
  '--tmpfs',
  '--mqueue',
  '--dir',
  '--seccomp',
  '--add-seccomp-fd',
  '--block-fd',
  '--userns-block-fd',
  '--info-fd',
  '--json-status-fd',
  '--cap-add',
  '--cap-drop',
  '--perms',
  '--size',
])
  ARITY[option] = 1;
for (const option of [
  '--setenv',
  '--bind',
  '--bind-try',
  '--dev-bind',
  '--dev-bind-try',
  '--ro-bind',
  '--ro-bind-try',
  '--bind-fd',
  '--ro-bind-fd',
  '--file',
  '--bind-data',
  '--ro-bind-data',
  '--symlink',
  '--chmod',
])
  ARITY[option] = 2;

// Mount options by where their target is: the last value, or the only one.
const TARGET_LAST = new Set([
  '--bind',
  '--bind-try',
  '--ro-bind',
  '--ro-bind-try',
  '--dev-bind',
  '--dev-bind-try',
  '--bind-fd',
  '--ro-bind-fd',
  '--file',
  '--bind-data',
  '--ro-bind-data',
  '--symlink',
]);
const TARGET_ONLY = new Set(['--tmpfs', '--dir', '--remount-ro', '--dev', '--proc', '--mqueue']);

const BIND_OPTIONS = new Set([
  '--bind',
  '--bind-try',
  '--ro-bind',
  '--ro-bind-try',
  '--dev-bind',
  '--dev-bind-try',
]);

const underTmp = (path: string): boolean => path.startsWith('/tmp/');

export type PrivateTmpEdit =
  | {
      readonly privateTmp: true;
      readonly command: string;
      /** Mount points bwrap creates under the sandbox's tmp directory, host paths. */
      readonly stubs: string[];
    }
  | { readonly privateTmp: false; readonly command: string; readonly reason: string };

/**
 * Gives the sandbox `sandboxTmp` as its /tmp in the command srt's wrapWithSandbox returned (Linux).
 * Returns undefined when the command is not one this code can read at all.
 */
export function privatizeTmp(
  wrapped: string,
  sandboxTmp: string,
  keepPaths: readonly string[] = [],
): PrivateTmpEdit | undefined {
  const words = splitShellWords(wrapped);
  if (words === undefined || words.length < 2) return undefined;
  // The --args form: /bin/sh -c '<open fd 9>' srt-args /proc/<pid>/fd/<n> bwrap … --args 9 …
  const viaArgsFile = words[0] === '/bin/sh' && words[1] === '-c' && words[3] === 'srt-args';
  const bwrapAt = viaArgsFile ? 5 : 0;
  if (words.length <= bwrapAt + 1 || !/(^|\/)bwrap$/.test(words[bwrapAt]!)) return undefined;

  let rootEnd: number | undefined;
  let separator: number | undefined;
  const rebinds: string[][] = [];
  // Targets under /tmp of srt's mounts after the root bind: bwrap makes their mount points in ours.
  const laterTargets: string[] = [];
  let i = bwrapAt + 1;
  while (i < words.length) {
    const word = words[i]!;
    if (word === '--' || !word.startsWith('--')) {
      separator = word === '--' ? i : undefined;
      break;
    }
    const arity = ARITY[word];
    if (arity === undefined || i + arity >= words.length) return undefined;
    const values = words.slice(i + 1, i + 1 + arity);
    if (BIND_OPTIONS.has(word) && values[0] === '/' && values[1] === '/' && rootEnd === undefined) {
      rootEnd = i + 3;
    } else if (rootEnd === undefined && BIND_OPTIONS.has(word) && underTmp(values[1]!)) {
      rebinds.push([word, values[0]!, values[1]!]);
    } else if (rootEnd !== undefined) {
      const target = TARGET_LAST.has(word) ? values[1] : TARGET_ONLY.has(word) ? values[0] : undefined;
      if (target !== undefined && underTmp(target)) laterTargets.push(target);
    }
    i += 1 + arity;
  }
  if (separator === undefined) return undefined;

  if (rootEnd === undefined) {
    const edited = [
      ...words.slice(0, separator),
      '--setenv',
      'TMPDIR',
      sandboxTmp,
      ...words.slice(separator),
    ];
    return {
      privateTmp: false,
      command: quoteWords(edited),
      reason: viaArgsFile
        ? 'srt passed its mounts through a file (a very long profile), so /tmp stays read-only'
        : "srt's command has no root bind, so /tmp stays the host's",
    };
  }

  const seen = new Set(rebinds.map(bind => bind[2]!));
  const keeps = keepPaths
    .filter(path => underTmp(path) && !seen.has(path))
    .map(path => ['--ro-bind-try', path, path]);
  const insert = [
    '--bind',
    sandboxTmp,
    '/tmp',
    ...rebinds.flat(),
    ...keeps.flat(),
    '--setenv',
    'TMPDIR',
    '/tmp',
  ];
  const edited = [...words.slice(0, rootEnd), ...insert, ...words.slice(rootEnd)];
  const stubs = [...rebinds.map(bind => bind[2]!), ...keeps.map(bind => bind[2]!), ...laterTargets].map(
    target => sandboxTmp + target.slice('/tmp'.length),
  );
  return { privateTmp: true, command: quoteWords(edited), stubs };
}
