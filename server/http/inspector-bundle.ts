import { join } from 'node:path';
import { contentTypeOf, type InspectorAsset, type InspectorAssets } from './inspector-asset.ts';

/** The inspector page: the bundle's script and stylesheet, nothing from elsewhere (works offline, no CDN). */
function indexHtml(script: string, stylesheet: string | undefined): string {
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<title>session-hub inspector</title>',
    // No icon: without this line browsers ask for /favicon.ico, a 404 in the page's console.
    '<link rel="icon" href="data:,">',
    stylesheet === undefined ? '' : `<link rel="stylesheet" href="/inspect/${stylesheet}">`,
    `</head><body><div id="app"></div><script type="module" src="/inspect/${script}"></script></body></html>`,
  ].join('');
}

/**
 * Bundles the inspector (Preact, the browser SDK, the shared log core) with esbuild into content-hashed files below
 * `assets/` and an `index.html` that loads them. `esbuild` is a development dependency: the published package ships
 * the result of this (dist/inspector, by `npm run build`), and a checkout bundles on first use.
 */
export async function bundleInspector(sourceDir: string): Promise<InspectorAssets> {
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [join(sourceDir, 'src', 'main.tsx')],
    bundle: true,
    write: false,
    outdir: join(sourceDir, 'out', 'assets'),
    entryNames: '[name]-[hash]',
    platform: 'browser',
    conditions: ['browser', 'source'],
    format: 'esm',
    target: 'es2022',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify: true,
    legalComments: 'none',
    metafile: true,
    logLevel: 'silent',
  });
  const outRoot = join(sourceDir, 'out');
  const assets = new Map<string, InspectorAsset>();
  for (const file of result.outputFiles) {
    const path = file.path.slice(outRoot.length + 1).replace(/\\/g, '/');
    assets.set(path, { body: file.contents, contentType: contentTypeOf(path), immutable: true });
  }
  const names = [...assets.keys()];
  const script = names.find((name) => name.endsWith('.js'));
  if (script === undefined) throw new Error('the inspector bundle has no script');
  const html = indexHtml(
    script,
    names.find((name) => name.endsWith('.css')),
  );
  assets.set('index.html', {
    body: new TextEncoder().encode(html),
    contentType: contentTypeOf('index.html'),
    immutable: false,
  });
  return assets;
}
