#!/usr/bin/env node
// Runs the TypeScript sources directly (no build step): tsx registers the loader, then the CLI runs.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../server/cli/cli.ts');
const code = await main(process.argv.slice(2));
if (typeof code === 'number') process.exitCode = code;
