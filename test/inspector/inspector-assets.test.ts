import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { loadInspectorAssets } from '../../server/http/inspector-assets.ts';
import { bundleInspector } from '../../server/http/inspector-bundle.ts';
import { writeInspector } from '../../inspector/write-assets.ts';

const SOURCES = new URL('../../inspector/', import.meta.url);

describe('inspector assets', () => {
  it('bundles for the browser: no Node built-ins, no server code, an index that names the hashed files', async () => {
    const assets = await bundleInspector(join(SOURCES.pathname));
    const html = new TextDecoder().decode(assets.get('index.html')!.body);
    const names = [...assets.keys()].filter((name) => name !== 'index.html');
    expect(names.every((name) => /^assets\/main-\w+\.(js|css)$/.test(name))).toBe(true);
    for (const name of names) expect(html).toContain(`/inspect/${name}`);
    const script = new TextDecoder().decode(assets.get(names.find((name) => name.endsWith('.js'))!)!.body);
    expect(script).not.toMatch(/["']node:|from\s*["']ws["']|ioredis/);
  });

  it('a built copy (npm run build:inspector) is served as built, without bundling again', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'inspector-'));
    try {
      await writeInspector(join(SOURCES.pathname), dir);
      const loaded = await loadInspectorAssets(pathToFileURL(`${dir}/`));
      const built = await bundleInspector(join(SOURCES.pathname));
      expect([...loaded.keys()].sort()).toEqual([...built.keys()].sort());
      expect(loaded.get('index.html')!.immutable).toBe(false);
      for (const [name, asset] of loaded) if (name !== 'index.html') expect(asset.immutable).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('the build script writes the same files', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'inspector-cli-'));
    try {
      const { stdout } = await promisify(execFile)(process.execPath, [
        '--import',
        'tsx',
        join(SOURCES.pathname, 'build.ts'),
        dir,
      ]);
      expect(stdout).toMatch(/inspector: 3 files/);
      expect((await loadInspectorAssets(pathToFileURL(`${dir}/`))).has('index.html')).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
