import { describe, expect } from 'vitest';
import type { ConformanceSuite, Session } from './suite.js';

type RestrictedSession = ReturnType<Session['restricted']>;

export function describeRestricted({ check, sharedSession }: ConformanceSuite): void {
  describe('restricted()', () => {
    const ctx = sharedSession();

    check('has the basic SandboxSession surface', [], async () => {
      const restricted = ctx.session.restricted();
      expect(typeof restricted.description).toBe('string');
      expect(restricted.description.trim()).not.toBe('');
      for (const method of [
        'run',
        'spawn',
        'readFile',
        'readBinaryFile',
        'readTextFile',
        'writeFile',
        'writeBinaryFile',
        'writeTextFile',
      ] as const) {
        expect(typeof restricted[method], method).toBe('function');
      }
    });

    check('lacks lifecycle, port, network and transformation members', [], async () => {
      const restricted = ctx.session.restricted() as unknown as Record<string, unknown>;
      for (const member of [
        'stop',
        'destroy',
        'getPortEndpoint',
        'getPortUrl',
        'setNetworkPolicy',
        'addRequestTransformations',
        'setRequestTransformations',
        'setPorts',
        'restricted',
      ]) {
        // Adapters detect members with `'x' in s && s.x != null`, so an undefined one counts as absent.
        expect(restricted[member] == null, `restricted().${member} is absent`).toBe(true);
      }
    });

    check('operates on the same sandbox as the full session', [], async () => {
      const restricted: RestrictedSession = ctx.session.restricted();
      const viaRestricted = ctx.path('via-restricted.txt');
      const viaFull = ctx.path('via-full.txt');
      await restricted.writeTextFile({ path: viaRestricted, content: 'restricted' });
      expect(await ctx.session.readTextFile({ path: viaRestricted })).toBe('restricted');
      await ctx.session.writeTextFile({ path: viaFull, content: 'full' });
      const result = await restricted.run({ command: 'pwd; cat "$F"', env: { F: viaFull } });
      expect(result.stdout).toBe(`${ctx.session.defaultWorkingDirectory}\nfull`);
    });
  });
}
