import { readFileSync } from 'node:fs';

/**
 * The version of the installed session-hub package: the `version` of the nearest `package.json` named
 * `session-hub` above this module (the sources run from `server/cli/`, a build from a deeper `dist/` folder).
 */
export function packageVersion(): string {
  for (let up = 2; up <= 4; up++) {
    const url = new URL(`${'../'.repeat(up)}package.json`, import.meta.url);
    let manifest: { name?: unknown; version?: unknown };
    try {
      manifest = JSON.parse(readFileSync(url, 'utf8')) as { name?: unknown; version?: unknown };
    } catch {
      continue;
    }
    if (manifest.name === 'session-hub' && typeof manifest.version === 'string') return manifest.version;
  }
  return 'unknown';
}
