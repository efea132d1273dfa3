import { describe, expect, it } from 'vitest';

import { SrtError } from '../srt-error.js';
import {
  APPARMOR_BWRAP_PROFILE,
  USERNS_SYSCTL,
  diagnose,
  diagnoseFailure,
  doctorChecks,
  gatherHostFacts,
  preflight,
  type FactSources,
  type HostFacts,
} from './preflight.js';
import { resolveRuntimeSettings } from './runtime-settings.js';

function sources(overrides: {
  platform?: NodeJS.Platform;
  executables?: string[];
  files?: Record<string, string>;
  env?: NodeJS.ProcessEnv;
}): FactSources {
  const files = overrides.files ?? {};
  const executables = new Set(overrides.executables ?? ['/usr/bin/bwrap', '/usr/bin/socat', '/usr/bin/rg']);
  return {
    platform: overrides.platform ?? 'linux',
    env: overrides.env ?? { PATH: '/usr/local/bin:/usr/bin' },
    readFile: path => files[path],
    exists: path => path in files,
    isExecutable: path => executables.has(path),
  };
}

const defaults = resolveRuntimeSettings({}, {});
const linux: HostFacts = gatherHostFacts(defaults, sources({}));

describe('gatherHostFacts', () => {
  it('finds the binaries on the PATH, or where the runtime settings say', () => {
    expect(linux.binaries).toEqual([
      { name: 'bwrap', requested: 'bwrap', path: '/usr/bin/bwrap' },
      { name: 'socat', requested: 'socat', path: '/usr/bin/socat' },
      { name: 'rg', requested: 'rg', path: '/usr/bin/rg' },
    ]);
    const custom = gatherHostFacts(
      resolveRuntimeSettings(
        { bwrapPath: '/opt/bwrap' },
        { SRT_SOCAT: '/opt/socat', SRT_RIPGREP: 'ripgrep' },
      ),
      sources({ executables: ['/opt/bwrap', '/opt/socat', '/usr/local/bin/ripgrep'] }),
    );
    expect(custom.binaries.map(binary => binary.path)).toEqual([
      '/opt/bwrap',
      '/opt/socat',
      '/usr/local/bin/ripgrep',
    ]);
  });

  it('reads the userns sysctl, the AppArmor profile and container markers', () => {
    const facts = gatherHostFacts(
      defaults,
      sources({ files: { [USERNS_SYSCTL]: '1\n', [APPARMOR_BWRAP_PROFILE]: 'profile', '/.dockerenv': '' } }),
    );
    expect(facts).toMatchObject({ usernsRestricted: true, apparmorBwrapProfile: true, inContainer: true });
    expect(linux).toMatchObject({ usernsRestricted: false, apparmorBwrapProfile: false, inContainer: false });
  });

  it('needs only rg on macOS', () => {
    expect(
      gatherHostFacts(defaults, sources({ platform: 'darwin' })).binaries.map(binary => binary.name),
    ).toEqual(['rg']);
  });
});

describe('diagnose', () => {
  it('passes a host with the three programs', () => {
    expect(diagnose(linux)).toBeUndefined();
  });

  it('names each missing program and the apt command', () => {
    const error = diagnose(gatherHostFacts(defaults, sources({ executables: ['/usr/bin/rg'] })));
    expect(error).toBeInstanceOf(SrtError);
    expect(error?.reason).toBe('missing-binary');
    expect(error?.message).toContain('bwrap (not on the PATH), socat (not on the PATH)');
    expect(error?.message).toContain('sudo apt install bubblewrap socat ripgrep');
    expect(error?.message).toContain('runtime.bwrapPath');
  });

  it('says when a configured path is not executable', () => {
    const error = diagnose(
      gatherHostFacts(resolveRuntimeSettings({}, { SRT_SOCAT: '/opt/socat' }), sources({})),
    );
    expect(error?.message).toContain('socat (not executable at /opt/socat)');
  });

  it('refuses Windows', () => {
    const error = diagnose(gatherHostFacts(defaults, sources({ platform: 'win32' })));
    expect(error?.reason).toBe('unsupported-platform');
  });

  it('does not block macOS without rg (srt does not run it there)', () => {
    expect(
      diagnose(gatherHostFacts(defaults, sources({ platform: 'darwin', executables: [] }))),
    ).toBeUndefined();
  });

  it('throws from preflight', () => {
    expect(() => preflight(defaults, sources({ executables: [] }))).toThrow(SrtError);
    expect(preflight(defaults, sources({}))).toEqual(linux);
  });
});

describe('diagnoseFailure', () => {
  const withFacts = (facts: Partial<HostFacts>) => ({ ...linux, ...facts });

  it.each([
    'bwrap: setting up uid map: Permission denied',
    'bwrap: loopback: Failed RTM_NEWADDR: Operation not permitted',
  ])('maps %j to the userns sysctl', stderr => {
    const error = diagnoseFailure(stderr, withFacts({ usernsRestricted: true }), defaults);
    expect(error.reason).toBe('userns-restricted');
    expect(error.message).toContain('sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0');
    expect(error.message).toContain(
      "echo 'kernel.apparmor_restrict_unprivileged_userns=0' | sudo tee /etc/sysctl.d/60-srt-userns.conf",
    );
  });

  const seccomp = 'apply-seccomp: write /proc/self/setgroups: Permission denied';

  it('maps the seccomp helper failure under the bwrap AppArmor profile to allowAllUnixSockets', () => {
    const error = diagnoseFailure(
      seccomp,
      withFacts({ apparmorBwrapProfile: true, usernsRestricted: true }),
      defaults,
    );
    expect(error.reason).toBe('apparmor-bwrap-profile');
    expect(error.message).toContain('runtime: { allowAllUnixSockets: true }');
  });

  it('maps the seccomp helper failure under the userns sysctl to the sysctl, or the escape hatch', () => {
    const error = diagnoseFailure(seccomp, withFacts({ usernsRestricted: true }), defaults);
    expect(error.reason).toBe('userns-restricted');
    expect(error.message).toContain('kernel.apparmor_restrict_unprivileged_userns=0');
    expect(error.message).toContain('allowAllUnixSockets');
  });

  it('maps other seccomp helper failures to the escape hatch', () => {
    const error = diagnoseFailure(seccomp, withFacts({ inContainer: true }), defaults);
    expect(error.reason).toBe('seccomp-unavailable');
    expect(error.message).toContain('allowAllUnixSockets');
  });

  it("maps a /proc mount refused in a container to srt's weaker nested mode", () => {
    const error = diagnoseFailure(
      "bwrap: Can't mount proc on /newroot/proc: Operation not permitted",
      withFacts({ inContainer: true }),
      defaults,
    );
    expect(error.reason).toBe('container-proc');
    expect(error.message).toContain('enableWeakerNestedSandbox: true');
  });

  it('keeps what it does not recognise, with the doctor command', () => {
    const error = diagnoseFailure('something odd', linux, defaults);
    expect(error.reason).toBe('probe-failed');
    expect(error.message).toContain('something odd');
    expect(error.message).toContain('doctor');
  });
});

describe('doctorChecks', () => {
  it('lists every check with its fix', () => {
    const facts = gatherHostFacts(
      defaults,
      sources({ executables: ['/usr/bin/bwrap', '/usr/bin/rg'], files: { [APPARMOR_BWRAP_PROFILE]: '' } }),
    );
    const checks = doctorChecks(facts, defaults, {
      ok: false,
      stderr: 'apply-seccomp: write /proc/self/setgroups: Permission denied',
    });
    expect(checks.map(check => [check.name, check.ok])).toEqual([
      ['platform', true],
      ['bwrap', true],
      ['socat', false],
      ['rg', true],
      ['user namespaces', true],
      ['AppArmor bwrap profile', false],
      ['unix sockets', true],
      ['fenced command', false],
    ]);
    expect(checks.find(check => check.name === 'socat')?.fix).toBe(
      'sudo apt install bubblewrap socat ripgrep',
    );
    expect(checks.find(check => check.name === 'AppArmor bwrap profile')?.fix).toContain(
      'allowAllUnixSockets',
    );
  });

  it('accepts the AppArmor profile once allowAllUnixSockets is set', () => {
    const runtime = resolveRuntimeSettings({ allowAllUnixSockets: true }, {});
    const facts = { ...linux, apparmorBwrapProfile: true };
    expect(doctorChecks(facts, runtime).every(check => check.ok)).toBe(true);
  });
});
