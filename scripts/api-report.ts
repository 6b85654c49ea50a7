/**
 * The API report (docs/architecture.md#the-public-surface): one `api/<entry>.api.md` per entry point of package.json
 * `exports`, written by API Extractor from the compiled declarations. `npm run api:check` (part of `npm test`)
 * fails when the public surface differs from the committed report and prints the difference; `npm run api:update`
 * rewrites the reports, so a change to the surface is a visible diff in review.
 */
import { execFile } from 'node:child_process';
import { mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Extractor, ExtractorConfig, ExtractorLogLevel, type ExtractorMessage } from '@microsoft/api-extractor';

const run = promisify(execFile);
const repoRoot = fileURLToPath(new URL('../', import.meta.url));
const reportFolder = join(repoRoot, 'api');
const update = process.argv.includes('--update');

interface ExportTarget {
  readonly types?: string;
}

/** `.` → `session-hub`, `./adapters/wire` → `adapters-wire`: the report's file name for a subpath. */
function reportName(subpath: string): string {
  return subpath === '.' ? 'session-hub' : subpath.slice(2).replaceAll('/', '-');
}

async function entryPoints(): Promise<{ name: string; declarations: string }[]> {
  const manifest = JSON.parse(await readFile(join(repoRoot, 'package.json'), 'utf8')) as {
    exports: Record<string, ExportTarget | string>;
  };
  return Object.entries(manifest.exports).flatMap(([subpath, target]) =>
    typeof target === 'object' && target.types !== undefined
      ? [{ name: reportName(subpath), declarations: target.types.replace(/^\.\/dist\//, '') }]
      : [],
  );
}

function reportMessage(message: ExtractorMessage): void {
  // Forgotten exports are written into the report itself; the TSDoc style of comments is not checked.
  message.handled = true;
  if (message.logLevel === ExtractorLogLevel.Error || message.logLevel === ExtractorLogLevel.Warning) {
    console.error(`api-report: ${message.formatMessageWithLocation(repoRoot)}`);
  }
}

/** API Extractor's settings for one entry point: the report only (no doc model, no rollup). */
function extractorConfig(name: string, entryDeclarations: string, reportTempFolder: string): ExtractorConfig {
  return ExtractorConfig.prepare({
    configObject: {
      projectFolder: repoRoot,
      mainEntryPointFilePath: entryDeclarations,
      compiler: {
        overrideTsconfig: {
          compilerOptions: {
            target: 'ES2022',
            module: 'NodeNext',
            moduleResolution: 'NodeNext',
            lib: ['ES2023', 'DOM'],
            types: ['node'],
            strict: true,
            skipLibCheck: true,
          },
          files: [entryDeclarations],
        },
      },
      apiReport: {
        enabled: true,
        reportFileName: name,
        reportFolder,
        reportTempFolder,
        includeForgottenExports: false,
      },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        compilerMessageReporting: { default: { logLevel: ExtractorLogLevel.Warning } },
        extractorMessageReporting: {
          default: { logLevel: ExtractorLogLevel.Warning },
          'ae-missing-release-tag': { logLevel: ExtractorLogLevel.None },
          'ae-undocumented': { logLevel: ExtractorLogLevel.None },
          'ae-forgotten-export': { logLevel: ExtractorLogLevel.None, addToApiReportFile: true },
        },
        tsdocMessageReporting: { default: { logLevel: ExtractorLogLevel.None } },
      },
    },
    configObjectFullPath: undefined,
    packageJsonFullPath: join(repoRoot, 'package.json'),
  });
}

async function main(): Promise<number> {
  // Inside the repository (and removed after), so that paths in the reports' warnings are the same on every machine.
  const work = join(repoRoot, '.api-report');
  await rm(work, { recursive: true, force: true });
  try {
    const declarations = join(work, 'dts');
    const tsc = join(repoRoot, 'node_modules', '.bin', 'tsc');
    await run(tsc, ['-p', 'tsconfig.build.json', '--emitDeclarationOnly', '--outDir', declarations], { cwd: repoRoot });
    await mkdir(reportFolder, { recursive: true });
    const changed: string[] = [];
    for (const entry of await entryPoints()) {
      const config = extractorConfig(entry.name, join(declarations, entry.declarations), join(work, 'report'));
      const result = Extractor.invoke(config, { localBuild: update, messageCallback: reportMessage });
      if (result.errorCount > 0) return 1;
      if (result.apiReportChanged && !update) {
        changed.push(entry.name);
        const committed = join(reportFolder, `${entry.name}.api.md`);
        const produced = join(work, 'report', `${entry.name}.api.md`);
        const diff = await run('diff', ['-u', committed, produced]).catch((error: { stdout?: string }) => error);
        console.error(diff.stdout ?? '');
      }
    }
    if (changed.length > 0) {
      console.error(
        `api-report: the public surface of ${changed.join(', ')} changed; run npm run api:update and commit api/`,
      );
      return 1;
    }
    return 0;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

process.exitCode = await main();
