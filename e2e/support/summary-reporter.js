// Prints one closing line that CI logs can be read by:
// "e2e: N passed, N failed" (", N skipped" when some were).

export default class SummaryReporter {
  constructor() {
    this.counts = { passed: 0, failed: 0, skipped: 0 };
  }

  onTestEnd(test, result) {
    // Count each test once, by its final result.
    if (result.retry < test.retries && result.status !== 'passed' && result.status !== 'skipped') return;
    if (result.status === 'passed') this.counts.passed += 1;
    else if (result.status === 'skipped') this.counts.skipped += 1;
    else this.counts.failed += 1;
  }

  onEnd() {
    const { passed, failed, skipped } = this.counts;
    const tail = skipped ? `, ${skipped} skipped` : '';
    process.stdout.write(`e2e: ${passed} passed, ${failed} failed${tail}\n`);
  }

  printsToStdio() {
    return false;
  }
}
