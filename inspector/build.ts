// `npm run build:inspector [outDir]`: bundles the inspector into dist/inspector/ (served by the built package's hub).
import { fileURLToPath } from 'node:url';
import { writeInspector } from './write-assets.ts';

const sourceDir = fileURLToPath(new URL('.', import.meta.url));
const outDir = process.argv[2] ?? fileURLToPath(new URL('../dist/inspector/', import.meta.url));
const count = await writeInspector(sourceDir, outDir);
console.log(`inspector: ${count} files in ${outDir}`);
