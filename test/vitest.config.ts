// End-to-end suites start real server processes and run real Ghostscript, qpdf and OCR jobs. Two files
// run at once on a 2-core CI machine (one per core: vitest's default of one less would run them one at
// a time): a file spends most of its time waiting on its servers and their tools, and each starts its
// own servers on their own ports, data folders, database and Redis prefix, so files never share state.
// Measured: 814 s one at a time, 489 s two at a time, every test passing. Timeouts are generous for the
// contention that brings. No test asserts on timing (issue #6 keeps speed for the benchmarks).
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'cli/**/*.test.ts', 'pack/**/*.test.ts'],
    maxWorkers: availableParallelism(),
    testTimeout: 120_000,
    hookTimeout: 120_000,
    teardownTimeout: 30_000,
  },
});
