import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    // Unit tests stay quiet; a failing test still shows its own assertion output.
    env: { PDN_LOG_LEVEL: 'quiet' },
  },
});
