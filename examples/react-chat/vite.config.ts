import { fileURLToPath } from 'node:url';
import { defaultClientConditions, defineConfig } from 'vite';

const repo = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url));

// In this repository the example imports the package from its TypeScript sources; in your project, with
// `session-hub` installed, drop `resolve` and `oxc`: the package's exports do the rest.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  resolve: {
    alias: [
      { find: /^session-hub\/react$/, replacement: repo('client/react/index.ts') },
      { find: /^session-hub\/ai-sdk$/, replacement: repo('client/ai-sdk/index.ts') },
      { find: /^session-hub$/, replacement: repo('client/index.ts') },
    ],
    conditions: ['source', ...defaultClientConditions],
  },
  oxc: { jsx: { runtime: 'automatic', importSource: 'react' } },
  build: { outDir: 'dist', emptyOutDir: true },
});
