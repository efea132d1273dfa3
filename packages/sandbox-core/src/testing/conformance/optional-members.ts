import { describe, expect } from 'vitest';
import { SETTLE_TIMEOUT, settle } from './settle.js';
import type { ConformanceSuite } from './suite.js';

export function describeOptionalMembers({ check, withFreshSession }: ConformanceSuite): void {
  describe('optional members', () => {
    check('present optional members are functions that return promises', [], async () => {
      await withFreshSession(async session => {
        // Arguments that change nothing on a fresh session (deny-all aside, which every policy supports).
        const argumentsFor: Record<string, unknown[]> = {
          setNetworkPolicy: [{ mode: 'deny-all' }],
          addRequestTransformations: [[]],
          setRequestTransformations: [[]],
          setPorts: [[...session.ports]],
        };
        const members = session as unknown as Record<string, unknown>;
        for (const [member, args] of Object.entries(argumentsFor)) {
          const value = members[member];
          if (value == null) continue;
          expect(typeof value, member).toBe('function');
          const result: unknown = Reflect.apply(value as (...a: unknown[]) => unknown, session, args);
          expect(isPromiseLike(result), `${member}() returns a promise`).toBe(true);
          const outcome = await settle(result as PromiseLike<unknown>, SETTLE_TIMEOUT, `${member}()`);
          if (outcome.status === 'rejected') {
            expect(outcome.reason, `${member}() rejects with an Error`).toBeInstanceOf(Error);
          }
        }
      });
    });
  });
}

function isPromiseLike(value: unknown): boolean {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}
