import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseResult, type IViolation } from 'dependency-cruiser';
import extractDepcruiseConfig from 'dependency-cruiser/config-utl/extract-depcruise-config';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

// The layer picture of docs/architecture.md against the rules `npm run lint` runs (.dependency-cruiser.mjs): a probe
// tree with one file per layer of the picture, each importing every other layer, must break exactly the walls the
// picture draws, no more and no fewer.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

interface PictureLayer {
  readonly name: string;
  /** Path prefixes (a folder ends with `/`) of the files the layer holds. */
  readonly files: readonly string[];
  /** The layers it may import besides itself. */
  readonly imports: readonly string[];
}

/** `server/{a,b}.ts` → `server/a.ts`, `server/b.ts`. */
function expandBraces(pattern: string): string[] {
  const match = /^(.*)\{([^}]*)\}(.*)$/.exec(pattern);
  if (match === null) return [pattern];
  const [, head = '', alternatives = '', tail = ''] = match;
  return alternatives.split(',').map((alternative) => `${head}${alternative}${tail}`);
}

/** The rows of the table under "## The layer picture": `| name | files | what | imports |`. */
function pictureLayers(markdown: string): PictureLayer[] {
  const section = markdown.split('\n## The layer picture\n')[1]?.split('\n## ')[0];
  if (section === undefined) throw new Error('docs/architecture.md has no "The layer picture" section');
  const rows = section.split('\n').filter((line) => line.startsWith('| `'));
  return rows.map((row) => {
    const [name = '', files = '', , imports = ''] = row
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim());
    const firstPath = /`([^`]+)`/.exec(files)?.[1];
    if (firstPath === undefined) throw new Error(`no files in the picture's row ${row}`);
    return {
      name: name.replaceAll('`', ''),
      files: expandBraces(firstPath),
      imports: [...imports.matchAll(/`([^`]+)`/g)].map((found) => found[1] ?? ''),
    };
  });
}

/** A file of the layer: the folder's `probe.ts`, or the layer's (first) file. */
function probeOf(layer: PictureLayer): string {
  const first = layer.files[0] ?? '';
  return first.endsWith('/') ? `${first}probe.ts` : first;
}

/** The layer holding `path`: the one with the longest matching prefix (`shared/adapters/` before `shared/`). */
function layerOf(layers: readonly PictureLayer[], path: string): PictureLayer | undefined {
  let best: { layer: PictureLayer; length: number } | undefined;
  for (const layer of layers) {
    for (const file of layer.files) {
      const holds = file.endsWith('/') ? path.startsWith(file) : path === file;
      if (holds && (best === undefined || file.length > best.length)) best = { layer, length: file.length };
    }
  }
  return best?.layer;
}

function sourceFiles(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name))
    .map((entry) => posix.join(entry.parentPath.slice(ROOT.length).replaceAll('\\', '/'), entry.name));
}

/** An import of `to` from `from` (both paths from the root), as a relative specifier. */
function specifier(from: string, to: string): string {
  const relative = posix.relative(posix.dirname(from), to);
  return relative.startsWith('.') ? relative : `./${relative}`;
}

/** Cruise a tree of files (path → source) with the lint rules; the violations it finds. */
async function cruiseTree(dir: string, files: Readonly<Record<string, string>>): Promise<IViolation[]> {
  for (const [path, source] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), source);
  }
  const config = await extractDepcruiseConfig(join(ROOT, '.dependency-cruiser.mjs'));
  // An import outside the allow-lists must fail `npm run lint`, not only warn.
  expect(config.allowedSeverity).toBe('error');
  const result = await cruise(['.'], {
    baseDir: dir,
    validate: true,
    ruleSet: { forbidden: config.forbidden ?? [], allowed: config.allowed ?? [], allowedSeverity: 'error' },
    tsPreCompilationDeps: true,
  });
  return (result.output as ICruiseResult).summary.violations;
}

describe('the layer picture and the import rules', () => {
  let layers: PictureLayer[];
  let dir: string;

  beforeAll(async () => {
    layers = pictureLayers(await readFile(join(ROOT, 'docs/architecture.md'), 'utf8'));
    dir = await mkdtemp(join(tmpdir(), 'layers-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('every source file is in a layer of the picture, and every import in the picture names a layer', () => {
    const names = new Set(layers.map((layer) => layer.name));
    expect(layers.length).toBeGreaterThan(10);
    expect(layers.flatMap((layer) => layer.imports).filter((name) => !names.has(name))).toEqual([]);
    const files = ['server', 'client', 'shared', 'inspector/src'].flatMap(sourceFiles);
    expect(files.length).toBeGreaterThan(100);
    expect(files.filter((file) => layerOf(layers, file) === undefined)).toEqual([]);
  });

  test('an import across a wall of the picture fails the rules; an import the picture allows passes', async () => {
    const tree: Record<string, string> = {};
    for (const layer of layers) {
      const from = probeOf(layer);
      const others = layers.filter((other) => other !== layer).map(probeOf);
      tree[from] = others.map((to) => `import '${specifier(from, to)}';\n`).join('');
    }
    // A file in a folder of no layer may import nothing.
    tree['server/unplaced/probe.ts'] = `import '../hub-error.ts';\n`;
    const violations = await cruiseTree(join(dir, 'walls'), tree);

    const walls = violations
      .filter((violation) => violation.rule.name === 'not-in-allowed')
      .map(
        (violation) =>
          `${layerOf(layers, violation.from)?.name ?? violation.from} -> ${layerOf(layers, violation.to)?.name}`,
      );
    const expected = layers.flatMap((layer) =>
      layers
        .filter((other) => other !== layer && !layer.imports.includes(other.name))
        .map((other) => `${layer.name} -> ${other.name}`),
    );
    expected.push('server/unplaced/probe.ts -> kernel');
    expect(walls.sort()).toEqual(expected.sort());
    // The probes, by name: each is a wall.
    for (const wall of [
      'auth -> http',
      'auth -> config',
      'auth -> presence',
      'fanout -> presence',
      'shared -> client',
    ]) {
      expect(walls).toContain(wall);
    }
  });

  test('browser code imports no Node built-in, a cycle of imports fails, even through type-only imports', async () => {
    const violations = await cruiseTree(join(dir, 'browser-and-cycles'), {
      'shared/probe.ts': `import { readFile } from 'node:fs/promises';\nexport const read = readFile;\n`,
      'client/provider-streams/probe.ts': `import 'node:os';\n`,
      'server/store/probe.ts': `import { readFile } from 'node:fs/promises';\nexport const read = readFile;\n`,
      'server/store/cycle-a.ts': `import type { B } from './cycle-b.ts';\nexport type A = { b?: B };\n`,
      'server/store/cycle-b.ts': `import type { A } from './cycle-a.ts';\nexport type B = { a?: A };\n`,
    });
    const found = violations.map((violation) => `${violation.rule.name}: ${violation.from} -> ${violation.to}`);
    expect(found.filter((line) => !line.startsWith('no-circular:')).sort()).toEqual([
      'browser-no-node: client/provider-streams/probe.ts -> os',
      'browser-no-node: shared/probe.ts -> fs/promises',
    ]);
    // One violation per cycle, named from either end.
    expect(found.filter((line) => line.startsWith('no-circular:'))).toEqual([
      expect.stringMatching(/^no-circular: server\/store\/cycle-[ab]\.ts -> server\/store\/cycle-[ab]\.ts$/),
    ]);
  });
});
