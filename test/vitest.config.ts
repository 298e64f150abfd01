// End-to-end suites start real server processes and run real Ghostscript, qpdf and OCR jobs. Two files
// run at once on a 2-core CI machine (one per core: vitest's default of one less would run them one at
// a time): a file spends most of its time waiting on its servers and their tools, and each starts its
// own servers on their own ports, data folders, database and Redis prefix, so files never share state.
// Measured: 814 s one at a time, 489 s two at a time, every test passing. Timeouts are generous for the
// contention that brings. No test asserts on speed (the benchmarks measure it); sdk-retries.test.ts only
// tells a wait of 300 ms from one of 30 s, which header the SDK obeyed.
//
// Two projects: `e2e` is every suite; `without-optional-languages` runs the suites whose expectations
// depend on the OCR language data once more, with Debian's optional language packs hidden from every
// server (harness/language-data.ts), so CI proves that they skip or adapt on a machine without them.
// Their tests that no language pack changes skip in that run. `npx vitest run --project e2e FILE`
// runs a file once.
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/** The suites whose expectations follow the languages a server lists. */
const LANGUAGE_DEPENDENT = ['src/ocr.test.ts'];

export default defineConfig({
  test: {
    maxWorkers: availableParallelism(),
    testTimeout: 120_000,
    hookTimeout: 120_000,
    teardownTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: { name: 'e2e', include: ['src/**/*.test.ts', 'cli/**/*.test.ts', 'pack/**/*.test.ts'] },
      },
      {
        extends: true,
        test: {
          name: 'without-optional-languages',
          include: LANGUAGE_DEPENDENT,
          env: { PDN_E2E_OPTIONAL_LANGUAGES: 'hidden' },
        },
      },
    ],
  },
});
