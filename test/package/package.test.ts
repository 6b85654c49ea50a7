import { execFile, spawn } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, it } from 'vitest';

/**
 * The package as a user gets it: build, `npm pack`, install the tarball into a fresh project, then use it there with
 * plain `node`, `npx session-hub`, a strict NodeNext `tsc` and an esbuild browser bundle (docs/client.md has the
 * bundle budget). Children run without the test runner's NODE_OPTIONS (the `source` condition and tsx).
 */
const run = promisify(execFile);
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const consumerDir = fileURLToPath(new URL('./consumer/', import.meta.url));
const bin = (name: string): string => join(repoRoot, 'node_modules', '.bin', name);
const { NODE_OPTIONS: _testRunnerOptions, ...env } = process.env;

/** Most bytes the minified browser bundle of `session-hub` may have (docs/client.md). */
const BROWSER_BUNDLE_BUDGET_BYTES = 104 * 1024;

interface PackedFile {
  readonly path: string;
}

// Generous timeouts: tsc and npm on a loaded 2-core machine; nothing here asserts a duration. The checks are
// independent once the package is installed: they run concurrently (each with its own `expect`).
describe.concurrent('the installed package', { timeout: 180_000 }, () => {
  let project: string;
  let tarball: string;
  let packed: readonly PackedFile[];
  let version: string;

  beforeAll(async () => {
    project = await mkdtemp(join(tmpdir(), 'session-hub-consumer-'));
    const repoPackage = JSON.parse(await readFile(join(repoRoot, 'package.json'), 'utf8')) as {
      version: string;
      devDependencies: Record<string, string>;
    };
    version = repoPackage.version;
    await run('npm', ['run', 'build'], { cwd: repoRoot, env });
    const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', project], {
      cwd: repoRoot,
      env,
    });
    const [pack] = JSON.parse(stdout) as [{ filename: string; files: PackedFile[] }];
    tarball = join(project, pack.filename);
    packed = pack.files;
    await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    await cp(consumerDir, project, { recursive: true });
    const typesNode = `@types/node@${repoPackage.devDependencies['@types/node']}`;
    // The optional peers of session-hub/react and session-hub/ai-sdk, at the versions the repository develops with.
    const peers = ['react', 'react-dom', '@types/react', 'ai'].map(
      (name) => `${name}@${repoPackage.devDependencies[name]}`,
    );
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball, typesNode, ...peers], {
      cwd: project,
      env,
    });
  }, 300_000);

  afterAll(async () => {
    if (project !== undefined) await rm(project, { recursive: true, force: true });
  });

  it('holds the compiled code, the bin, README and LICENSE, nothing else', ({ expect }) => {
    const tops = new Set(packed.map((file) => file.path.split('/')[0]));
    expect([...tops].sort()).toEqual(['LICENSE', 'README.md', 'bin', 'dist', 'package.json']);
    expect(packed.some((file) => file.path.endsWith('.ts') && !file.path.endsWith('.d.ts'))).toBe(false);
    expect(packed.map((file) => file.path)).toContain('dist/inspector/index.html');
  });

  it('runs under plain node: the entry points, a memory hub, subscribe and append through the SDK', async ({
    expect,
  }) => {
    const { stdout } = await run(process.execPath, ['run-hub.mjs'], { cwd: project, env });
    expect(JSON.parse(stdout)).toEqual({
      committedSeq: 0,
      receivedSeq: 0,
      messages: [{ role: 'user', content: 'hi' }],
      forbidden: 'FORBIDDEN',
    });
  });

  it('runs the React and AI SDK entry points under plain node (server rendering, the log as UI messages)', async ({
    expect,
  }) => {
    const { stdout } = await run(process.execPath, ['react-ai.mjs'], { cwd: project, env });
    expect(JSON.parse(stdout)).toEqual({
      html: '<p>loading</p>',
      replay: true,
      derived: [
        { role: 'user', content: 'hi', id: 'u1' },
        { role: 'assistant', content: 'hello' },
      ],
    });
  });

  it('npx session-hub serve --port 0 starts from the installed package and answers /healthz and /inspect/', async ({
    expect,
  }) => {
    const child = spawn('npx', ['--no-install', 'session-hub', 'serve', '--port', '0'], {
      cwd: project,
      env: { ...env, LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let stdout = '';
        child.stdout.on('data', (chunk: Buffer) => {
          stdout += chunk.toString();
          const match = /listening on (http:\/\/\S+)/.exec(stdout);
          if (match !== null) resolve(match[1]!);
        });
        void exited.then((code) => reject(new Error(`session-hub exited with ${code}: ${stdout}`)));
      });
      const health = await fetch(`${url}/healthz`);
      expect(health.status).toBe(200);
      const inspector = await fetch(`${url}/inspect/`);
      expect(inspector.status).toBe(200);
      expect(await inspector.text()).toContain('session-hub inspector');
    } finally {
      process.kill(-child.pid!, 'SIGTERM');
      await exited;
    }
  });

  it('npx session-hub --help prints the usage; --version the package version', async ({ expect }) => {
    const { stdout: usage } = await run('npx', ['--no-install', 'session-hub', '--help'], { cwd: project, env });
    expect(usage).toContain('serve');
    expect(usage).toContain('--version');
    const { stdout } = await run('npx', ['--no-install', 'session-hub', '--version'], { cwd: project, env });
    expect(stdout.trim()).toBe(version);
  });

  it('type-checks a consumer with only strict and NodeNext (no skipLibCheck)', async ({ expect }) => {
    const result = await run(bin('tsc'), ['-p', 'tsconfig.json'], { cwd: project, env }).catch(
      (error: { stdout: string }) => error,
    );
    expect(result.stdout).toBe('');
  });

  // skipLibCheck: ai's own declarations take minutes to check on a loaded machine (the strict check of this
  // package's declarations is the test above); this one checks that the React and AI SDK entry points type as used.
  it('type-checks a consumer of session-hub/react and session-hub/ai-sdk (strict, NodeNext)', async ({ expect }) => {
    const result = await run(bin('tsc'), ['-p', 'tsconfig.react.json'], { cwd: project, env }).catch(
      (error: { stdout: string }) => error,
    );
    expect(result.stdout).toBe('');
  });

  it('bundles the SDK for browsers: no Node built-ins, no server code, within the size budget', async ({ expect }) => {
    const result = await build({
      entryPoints: [join(project, 'browser.mjs')],
      absWorkingDir: project,
      bundle: true,
      write: false,
      platform: 'browser',
      format: 'esm',
      minify: true,
      metafile: true,
      logLevel: 'silent',
    });
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.filter((path) => /node_modules\/(ws|ioredis|pino|prom-client|jose)\//.test(path))).toEqual([]);
    expect(inputs.filter((path) => path.includes('session-hub/dist/server/'))).toEqual([]);
    // The React hooks and the AI SDK transport are entry points of their own: a plain SDK bundle holds none of them.
    expect(inputs.filter((path) => /session-hub\/dist\/(react|ai-sdk)\/|client\/session-store/.test(path))).toEqual([]);
    expect(inputs).toContain('node_modules/session-hub/dist/client/transport-browser.js');
    const bytes = result.outputFiles[0]!.contents;
    console.log(`browser bundle: ${bytes.byteLength} bytes minified, ${gzipSync(bytes).byteLength} gzipped`);
    expect(bytes.byteLength).toBeLessThan(BROWSER_BUNDLE_BUDGET_BYTES);
  });

  it('passes publint and arethetypeswrong (ESM only)', async ({ expect }) => {
    await expect(run(bin('publint'), ['run', tarball, '--strict'], { env })).resolves.toBeDefined();
    await expect(run(bin('attw'), [tarball, '--profile', 'esm-only'], { env })).resolves.toBeDefined();
  });
});
