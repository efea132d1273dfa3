import { describe, expect, it } from 'vitest';
import { doctorChecks, type HostFacts } from '../fence/preflight.js';
import { resolveRuntimeSettings } from '../fence/runtime-settings.js';
import { doctorReport, nodeCheck } from './doctor-command.js';

describe('doctor report', () => {
  it('prints each failed check with its fix, every line of it, and says the host is not ready', () => {
    const facts: HostFacts = {
      platform: 'linux',
      binaries: [
        { name: 'bwrap', requested: 'bwrap', path: '/usr/bin/bwrap' },
        { name: 'socat', requested: 'socat', path: undefined },
        { name: 'rg', requested: 'rg', path: '/usr/bin/rg' },
      ],
      usernsRestricted: true,
      apparmorBwrapProfile: false,
      inContainer: false,
    };
    const report = doctorReport(doctorChecks(facts, resolveRuntimeSettings({}, {})));
    const text = report.join('\n');
    expect(text).toMatch(/✓\s+bwrap\s+\/usr\/bin\/bwrap/);
    expect(text).toMatch(/✗\s+socat\s+socat not found\n\s+fix: sudo apt install bubblewrap socat ripgrep\n/);
    expect(text).toMatch(
      /✗\s+user namespaces\s+kernel\.apparmor_restrict_unprivileged_userns=1\n\s+fix: sudo sysctl -w kernel\.apparmor_restrict_unprivileged_userns=0\n\s+echo 'kernel/,
    );
    expect(report.at(-1)).toBe('This host cannot run sandboxes yet: see the fixes above.');
  });
});

describe('node check', () => {
  it('asks for 22.12 or later', () => {
    expect(nodeCheck('24.1.0').ok).toBe(true);
    expect(nodeCheck('22.12.0').ok).toBe(true);
    expect(nodeCheck('22.11.0')).toMatchObject({ ok: false, detail: 'v22.11.0 (needs 22.12 or later)' });
    expect(nodeCheck('20.19.0').ok).toBe(false);
  });
});
