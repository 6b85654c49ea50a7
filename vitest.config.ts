import { defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';
import { integrationExclude, testTiers } from './test/tiers.ts';

// Tests run the TypeScript sources: the `source` condition of package.json `exports`/`imports` (the compiled dist/
// is only for the installed package, checked by test/package/). Child processes (hubs started through
// bin/session-hub.mjs) get the same condition and tsx through NODE_OPTIONS.
const sourceNodeOptions = '--conditions=source --import=tsx';

export default defineConfig({
  ssr: { resolve: { conditions: ['source', ...defaultServerConditions] } },
  test: {
    // Fails any test during which an unhandled rejection, an uncaught exception or a child-process crash happened.
    setupFiles: ['./test/setup/process-guard.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    env: { NODE_OPTIONS: [process.env['NODE_OPTIONS'], sourceNodeOptions].filter(Boolean).join(' ') },
    reporters: ['default', './test/reporters/summary-line.ts'],
    // One project per tier (test/tiers.ts, docs/testing.md): `vitest run` runs them all, each file exactly once;
    // `vitest run --project unit` (npm run test:unit) runs one.
    projects: [
      ...Object.entries(testTiers).map(([name, include]) => ({
        extends: true as const,
        test: { name, include: [...include] },
      })),
      {
        extends: true as const,
        test: { name: 'integration', include: ['test/**/*.test.ts'], exclude: integrationExclude },
      },
    ],
  },
});
