import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Fails any test during which an unhandled rejection, an uncaught exception or a child-process crash happened.
    setupFiles: ['./test/setup/process-guard.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    reporters: ['default', './test/reporters/summary-line.ts'],
  },
});
