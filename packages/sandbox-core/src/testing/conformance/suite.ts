import { randomUUID } from 'node:crypto';
import { posix } from 'node:path';
import type { HarnessV1NetworkSandboxSession } from '@ai-sdk/harness';
import { afterAll, beforeAll, it } from 'vitest';
import { validateSkips, type ConformanceCapability, type ConformanceOptions } from './capabilities.js';
import { HOOK_TIMEOUT, SETTLE_TIMEOUT, TEST_TIMEOUT, settle, within } from './settle.js';

export type Session = HarnessV1NetworkSandboxSession;

export interface SharedSession {
  readonly session: Session;
  /** A fresh absolute path under this block's scratch directory in defaultWorkingDirectory. */
  path(label: string): string;
  /** Creates a directory at a fresh `path(label)` (parents too) and returns its path. */
  directory(label: string): Promise<string>;
}

/** What each area of the suite registers its tests with. */
export interface ConformanceSuite {
  /** Registers a test that needs the given capabilities, or skips it with the reason if one is lacking. */
  check(
    title: string,
    needs: readonly ConformanceCapability[],
    fn: () => Promise<void>,
    timeout?: number,
  ): void;
  /** One session for the calling describe block, destroyed after it; tests keep apart through unique paths. */
  sharedSession(): SharedSession;
  /** Runs `fn` with a session of its own and destroys that session afterwards. */
  withFreshSession(fn: (session: Session) => Promise<void>): Promise<void>;
}

/** Checks the skips (throwing on a bad one) and binds the suite's helpers to `options`. */
export function createConformanceSuite(options: ConformanceOptions): ConformanceSuite {
  const skip = validateSkips(options.skip ?? {});
  return {
    check: (title, needs, fn, timeout = TEST_TIMEOUT) => {
      const lacking = needs.find(capability => skip[capability] !== undefined);
      if (lacking !== undefined) {
        it.skip(`${title} (skipped, no ${lacking}: ${skip[lacking]})`, fn);
      } else {
        it(title, fn, timeout);
      }
    },
    sharedSession: () => useSharedSession(options.create),
    withFreshSession: fn => withFreshSession(options.create, fn),
  };
}

function useSharedSession(create: ConformanceOptions['create']): SharedSession {
  let session: Session | undefined;
  let root = '';
  beforeAll(async () => {
    session = await create();
    root = posix.join(session.defaultWorkingDirectory, `conformance-${randomUUID().slice(0, 8)}`);
  }, HOOK_TIMEOUT);
  afterAll(async () => {
    const current = session;
    session = undefined;
    if (current === undefined) return;
    try {
      // A sandbox whose destroy() keeps its files should not collect the suite's litter.
      await settle(
        current.run({ command: 'rm -rf -- "$ROOT"', env: { ROOT: root } }),
        SETTLE_TIMEOUT,
        'cleanup',
      );
    } finally {
      await within(current.destroy(), SETTLE_TIMEOUT, 'destroy()');
    }
  }, HOOK_TIMEOUT);
  const shared: SharedSession = {
    get session() {
      if (session === undefined) throw new Error('No session: create() failed in beforeAll.');
      return session;
    },
    path: label => posix.join(root, `${label}-${randomUUID().slice(0, 8)}`),
    directory: async label => {
      const dir = shared.path(label);
      await shared.session.run({ command: 'mkdir -p "$DIR"', env: { DIR: dir } });
      return dir;
    },
  };
  return shared;
}

async function withFreshSession(
  create: ConformanceOptions['create'],
  fn: (session: Session) => Promise<void>,
): Promise<void> {
  const session = await create();
  try {
    await fn(session);
  } finally {
    await within(session.destroy(), SETTLE_TIMEOUT, 'destroy()');
  }
}
