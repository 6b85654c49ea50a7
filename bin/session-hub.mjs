#!/usr/bin/env node
// The `session-hub` command. `#cli` (package.json `imports`) is the compiled CLI in dist/; inside the repository,
// `node --conditions=source --import tsx bin/session-hub.mjs` runs the TypeScript sources instead (npm start, tests).
// In a checkout where dist/ is not built (a fresh clone: `npx session-hub serve`), the sources run through tsx when
// it is installed (npm ci); without it, one line says what to run.
import { register } from 'node:module';

/** Load the CLI: the compiled one, or in a checkout without dist/ the TypeScript sources. */
async function loadCli() {
  try {
    return await import('#cli');
  } catch (error) {
    if (!isMissingDist(error)) throw error;
  }
  try {
    await import('tsx');
  } catch {
    process.stderr.write(
      'session-hub: the compiled CLI (dist/) is missing: run `npm run build`, or `npm ci` to run it from the sources\n',
    );
    process.exit(1);
  }
  // The `source` export condition: `#cli`, `#transport` and the package's own entry points resolve to the sources.
  const addSourceCondition =
    'export const resolve = (specifier, context, next) => ' +
    "next(specifier, { ...context, conditions: ['source', ...context.conditions] });";
  register(`data:text/javascript,${encodeURIComponent(addSourceCondition)}`);
  return import('#cli');
}

/** The import failed because dist/ is not built (not because something the CLI needs is missing). */
function isMissingDist(error) {
  return (
    error instanceof Error &&
    'code' in error &&
    error.code === 'ERR_MODULE_NOT_FOUND' &&
    error.message.includes(new URL('../dist/', import.meta.url).pathname)
  );
}

const { main } = await loadCli();
const code = await main(process.argv.slice(2));
if (typeof code === 'number') process.exitCode = code;
