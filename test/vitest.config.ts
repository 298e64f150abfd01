// End-to-end suites start real server processes and run real Ghostscript, qpdf and OCR jobs: on a
// 2-core CI machine files run one at a time so servers don't contend, and timeouts are generous.
// No test asserts on timing (issue #6 keeps speed for the benchmarks).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'cli/**/*.test.ts', 'pack/**/*.test.ts'],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 120_000,
    teardownTimeout: 30_000,
  },
});
