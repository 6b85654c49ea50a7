/**
 * The compiled hub for the bench: `dist/` as `npm run build` makes it (`tsc -p tsconfig.build.json`), which is what
 * the package's `./server` export resolves to once installed. The memory scenario measures that build, not the
 * TypeScript sources run through tsx (whose `keepNames` wraps every named closure in a helper call).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Which hub a bench child runs: the TypeScript sources (through tsx) or the compiled `dist/`. */
export type HubBuild = 'source' | 'dist';

const root = fileURLToPath(new URL('..', import.meta.url));
const builtEntry = join(root, 'dist', 'server', 'index.js');

/** Newest modification time (ms) of the `.ts` files under `dir` (tests excluded). */
function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) {
      newest = Math.max(newest, statSync(path).mtimeMs);
    }
  }
  return newest;
}

/** Is `dist/server/index.js` missing or older than a source of the server or of shared/? */
export function distIsStale(): boolean {
  if (!existsSync(builtEntry)) return true;
  const built = statSync(builtEntry).mtimeMs;
  return ['server', 'shared'].some((dir) => newestSource(join(root, dir)) > built);
}

/** Compile `dist/` with the project's TypeScript when it is stale (about half a minute on 2 cores). */
export function ensureDistBuild(log: (line: string) => void): void {
  if (!distIsStale()) return;
  log('compiling dist/ (tsc -p tsconfig.build.json) for the compiled hub');
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`tsc -p tsconfig.build.json failed (${String(result.status)})`);
}
