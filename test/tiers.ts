/**
 * The test tiers (vitest projects, see vitest.config.ts and docs/testing.md), by folder so that a new test file
 * lands in its folder's tier without anyone listing it. `integration` is the rest: every `test/**\/*.test.ts`
 * that no tier below claims, so each file runs in exactly one project.
 */
export const testTiers = {
  /** No Redis, no child process, no browser: the log core, adapters and policies. Quick (`npm run test:unit`). */
  unit: [
    'test/shared/**/*.test.ts',
    'test/adapters/**/*.test.ts',
    'test/auth/**/*.test.ts',
    'test/limits/**/*.test.ts',
  ],
  /** Redis Cluster and Sentinel: several redis-server processes per file, failovers, slot migrations. */
  cluster: ['test/cluster/**/*.test.ts'],
  /** The benchmark harness and its short load runs. */
  bench: ['test/bench/**/*.test.ts'],
  /** Debian Chromium through playwright-core: the SDK in a page, the inspector. */
  browser: ['test/browser/**/*.test.ts', 'test/inspector/**/*.test.ts'],
  /** The package as a user installs it: build, pack, install, plain node, strict tsc, a browser bundle. */
  package: ['test/package/**/*.test.ts'],
} as const satisfies Record<string, readonly string[]>;

/** The tiers' globs, which the `integration` project (every other file under test/) leaves out. */
export const integrationExclude: string[] = Object.values(testTiers).flat();
