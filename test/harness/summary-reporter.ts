// Prints one plain closing line, `tests: N passed, N failed, N skipped`, after vitest's own summary, so a
// reader (or CI) that does not parse vitest's coloured output still sees the counts.
import type { Reporter, TestModule } from 'vitest/node';

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const module of testModules) {
      const failedBefore = failed;
      for (const test of module.children.allTests()) {
        const { state } = test.result();
        if (state === 'passed') passed += 1;
        else if (state === 'failed') failed += 1;
        else skipped += 1;
      }
      // A file that failed to load, or whose beforeAll failed (its tests then count as skipped), has no failed
      // test: count it, so the line never reads 0 failed for a failing run.
      if (module.state() === 'failed' && failed === failedBefore) failed += 1;
    }
    process.stdout.write(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
