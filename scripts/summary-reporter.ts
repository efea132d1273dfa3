// Prints one closing line per test run, `<project>: N passed, N failed, N skipped`, which CI reads.
import type { Reporter, TestModule } from 'vitest/node';

export default class SummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    const projects = new Set<string>();
    for (const module of modules) {
      projects.add(module.project.name || 'tests');
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') counts.passed++;
        else if (state === 'failed') counts.failed++;
        else counts.skipped++;
      }
    }
    const label = [...projects].join('+') || 'tests';
    console.log(`\n${label}: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`);
  }
}
