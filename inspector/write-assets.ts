import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { bundleInspector } from '../server/http/inspector-bundle.ts';

/** Bundle the inspector from `sourceDir` and write its files into `outDir` (emptied first). */
export async function writeInspector(sourceDir: string, outDir: string): Promise<number> {
  const assets = await bundleInspector(sourceDir);
  await rm(outDir, { recursive: true, force: true });
  for (const [path, asset] of assets) {
    const file = join(outDir, path);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, asset.body);
  }
  return assets.size;
}
