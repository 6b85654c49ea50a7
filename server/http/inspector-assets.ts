import { readdir, readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { contentTypeOf, type InspectorAsset, type InspectorAssets } from './inspector-asset.ts';

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
