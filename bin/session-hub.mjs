#!/usr/bin/env node
// The `session-hub` command. `#cli` (package.json `imports`) is the compiled CLI in dist/; inside the repository,
// `node --conditions=source --import tsx bin/session-hub.mjs` runs the TypeScript sources instead (npm start, tests).
import { main } from '#cli';

const code = await main(process.argv.slice(2));
if (typeof code === 'number') process.exitCode = code;
