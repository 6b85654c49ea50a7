import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { watchChild } from '../helpers/child-watch.ts';
import type { CliResult } from './run-cli.ts';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const version = (JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { version: string }).version;

/**
 * A checkout without dist/: package.json and the bin copied, the sources (and, with `installed`, node_modules)
 * linked from this repository. Whether this repository has a dist/ or not does not matter.
 */
function checkout(installed: boolean): string {
  const dir = mkdtempSync(join(tmpdir(), 'session-hub-clone-'));
  mkdirSync(join(dir, 'bin'));
  copyFileSync(join(repo, 'package.json'), join(dir, 'package.json'));
  copyFileSync(join(repo, 'bin/session-hub.mjs'), join(dir, 'bin/session-hub.mjs'));
  for (const folder of ['server', 'shared', 'client', 'inspector']) symlinkSync(join(repo, folder), join(dir, folder));
  if (installed) symlinkSync(join(repo, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

/** `node bin/session-hub.mjs <args>` as a user types it: no NODE_OPTIONS (the suite's tsx and source condition). */
function runBin(dir: string, args: readonly string[]): Promise<CliResult> {
  const env = { ...process.env };
  delete env['NODE_OPTIONS'];
  const child = spawn(process.execPath, [join(dir, 'bin/session-hub.mjs'), ...args], { cwd: dir, env });
  watchChild(child, 'session-hub (fresh clone)', { exitExpected: true });
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => (output.stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, ...output }));
  });
}

describe('bin/session-hub.mjs in a fresh clone (dist/ not built)', { timeout: 60_000 }, () => {
  it('runs the TypeScript sources through tsx when it is installed', async () => {
    const dir = checkout(true);
    expect(await runBin(dir, ['--version'])).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
    const usage = await runBin(dir, ['token', '--help']);
    expect(usage.code).toBe(0);
    expect(usage.stdout).toMatch(/^Usage: session-hub token /);
  });

  it('without tsx (no npm ci yet): one line that says what to run, exit 1, no stack', async () => {
    const result = await runBin(checkout(false), ['--version']);
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'session-hub: the compiled CLI (dist/) is missing: run `npm run build`, or `npm ci` to run it from the sources\n',
    });
  });
});
