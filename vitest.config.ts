import { defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

// Tests run the TypeScript sources: the `source` condition of package.json `exports`/`imports` (the compiled dist/
// is only for the installed package, checked by test/package/). Child processes (hubs started through
// bin/session-hub.mjs) get the same condition and tsx through NODE_OPTIONS.
const sourceNodeOptions = '--conditions=source --import=tsx';

export default defineConfig({
  ssr: { resolve: { conditions: ['source', ...defaultServerConditions] } },
  test: {
    include: ['test/**/*.test.ts'],
    // Fails any test during which an unhandled rejection, an uncaught exception or a child-process crash happened.
    setupFiles: ['./test/setup/process-guard.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    env: { NODE_OPTIONS: [process.env['NODE_OPTIONS'], sourceNodeOptions].filter(Boolean).join(' ') },
    reporters: ['default', './test/reporters/summary-line.ts'],
  },
});
