import { readdir, readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One static file of the web inspector. */
export interface InspectorAsset {
  readonly body: Uint8Array;
  readonly contentType: string;
  /** Content-hashed name: cached for a year. Otherwise (`index.html`) revalidated on every load. */
  readonly immutable: boolean;
}

/** The inspector's files by path below `/inspect/` (`index.html`, `assets/main-<hash>.js`, …). */
export type InspectorAssets = ReadonlyMap<string, InspectorAsset>;

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

export function contentTypeOf(path: string): string {
  return CONTENT_TYPES[extname(path)] ?? 'application/octet-stream';
}

/** `dist/inspector/` in the installed package (written by `npm run build`); `inspector/` (sources) in a checkout. */
const ROOT = new URL('../../inspector/', import.meta.url);

/**
 * The inspector's files: the prebuilt ones when they exist (a built package), else bundled now from the sources with
 * esbuild (a checkout running through tsx). Rejects when neither is possible (sources without esbuild).
 */
export async function loadInspectorAssets(root: URL = ROOT): Promise<InspectorAssets> {
  const dir = fileURLToPath(root);
  if (existsSync(join(dir, 'index.html'))) return readBuilt(dir);
  if (!existsSync(join(dir, 'src', 'main.tsx'))) throw new Error(`no inspector assets in ${dir}`);
  const { bundleInspector } = await import('./inspector-bundle.ts');
  return bundleInspector(dir);
}

async function readBuilt(dir: string): Promise<InspectorAssets> {
  const assets = new Map<string, InspectorAsset>();
  const names = await readdir(dir, { recursive: true, withFileTypes: true });
  for (const entry of names) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name).slice(dir.length).replace(/\\/g, '/').replace(/^\//, '');
    assets.set(path, {
      body: await readFile(join(dir, path)),
      contentType: contentTypeOf(path),
      immutable: path.startsWith('assets/'),
    });
  }
  return assets;
}
