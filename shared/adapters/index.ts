// Placeholder for the `session-hub/adapters` entry point (package.json `exports`), so that the build and the package
// checks pass before the adapters land; their shared/adapters/index.ts replaces this file.
export {};
