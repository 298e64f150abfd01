// End-to-end suites start real server processes and run real Ghostscript, qpdf and OCR jobs. Two files
// run at once on a 2-core CI machine (one per core: vitest's default of one less would run them one at
// a time): a file spends most of its time waiting on its servers and their tools, and each starts its
// own servers on their own ports, data folders, database and Redis prefix, so files never share state.
// Measured: 814 s one at a time, 489 s two at a time, every test passing. Timeouts are generous for the
// contention that brings. No test asserts on timing (the benchmarks measure speed).
//
// Two projects: `e2e` is every suite; `without-optional-languages` runs the suites whose expectations
// depend on the OCR language data once more, with Debian's optional language packs hidden from every
// server (harness/language-data.ts), so CI proves that they skip or adapt on a machine without them
// (about a minute). `npx vitest run --project e2e FILE` runs a file once.
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** The files that run longest (measured: 90-330 s each), whatever their size. */
const LONGEST = /\/(corpus|scale-out|jobs|docs-browser|stack-contract|bad-input)\.test\.ts$/;

/**
 * Starts the longest files first. Vitest starts the files it has no times for (a clean clone, as in
 * CI) largest first, and a short file can run long: one started last ends the run alone on one core
 * while the other sits idle (stack-contract.test.ts, 92 s, started 2 minutes before the end).
 */
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const long = (file: TestSpecification) => LONGEST.test(file.moduleId);
    return [...sorted.filter(long), ...sorted.filter((file) => !long(file))];
  }
}

/** The suites whose expectations follow the languages a server lists. */
const LANGUAGE_DEPENDENT = ['src/ocr.test.ts'];

export default defineConfig({
  test: {
    maxWorkers: availableParallelism(),
    sequence: { sequencer: LongestFirst },
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
