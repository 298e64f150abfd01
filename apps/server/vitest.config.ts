import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    // One test file per core, not vitest's default of one less: most of these files wait on a tool
    // (Ghostscript, qpdf, tesseract) working on one core, so on a 2-core machine a single worker left
    // the other core idle. Measured: 389 s with one worker, 239 s with two, every test passing.
    maxWorkers: availableParallelism(),
    // Unit tests stay quiet; a failing test still shows its own assertion output.
    env: { PDN_LOG_LEVEL: 'quiet' },
  },
});
