import { extname } from 'node:path';

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
