/**
 * A conformance suite for any `HarnessV1NetworkSandboxSession`: what the harness, its adapters and
 * AI SDK tools rely on (harness-contract.md §1, §2.1, §4, §6), checked through the public surface only.
 * Call `describeSandboxConformance()` from a test file with a `create` that makes a fresh session;
 * a sandbox that cannot do something lists it in `skip` with the reason, which the skipped test's
 * title shows.
 */
import { describe } from 'vitest';
import { describeBackgroundJobs } from './background-jobs.js';
import type { ConformanceOptions } from './capabilities.js';
import { describeCommands } from './commands.js';
import { describeFiles } from './files.js';
import { describeIdentity } from './identity.js';
import { describeLifecycle } from './lifecycle.js';
import { describeOptionalMembers } from './optional-members.js';
import { describePorts } from './ports.js';
import { describeRestricted } from './restricted.js';
import { describeSpawn } from './spawn.js';
import { createConformanceSuite } from './suite.js';

export {
  conformanceCapabilities,
  type ConformanceCapability,
  type ConformanceOptions,
} from './capabilities.js';

export function describeSandboxConformance(name: string, options: ConformanceOptions): void {
  const suite = createConformanceSuite(options);
  describe(`sandbox conformance: ${name}`, () => {
    describeIdentity(suite);
    describeCommands(suite);
    describeSpawn(suite);
    describeBackgroundJobs(suite);
    describeFiles(suite);
    describeRestricted(suite);
    describeOptionalMembers(suite);
    describePorts(suite);
    describeLifecycle(suite);
  });
}
