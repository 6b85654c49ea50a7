// What the archive fault tests share (archive-faults.test.ts, restore-faults.test.ts): the archive locations they run
// on (a fresh directory, a fresh PostgreSQL database) and a child process that runs one step of the tiers and may
// kill itself with SIGKILL on the way.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { ArchiveBackend } from '../../server/archive/archive-backend.ts';
import { archiveBackendFor } from '../../server/archive/archive-location.ts';
import { watchChild } from '../helpers/child-watch.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.ts';

export interface FaultLocation {
  readonly name: string;
  readonly create: () => Promise<{ location: string; cleanup: () => Promise<void>; database?: TestDatabase }>;
}

/** Both archive backends, each on storage of its own. */
export const faultLocations: FaultLocation[] = [
  {
    name: 'file',
    create: async () => {
      const dir = await mkdtemp(join(tmpdir(), 'sh-archive-run-'));
      return { location: `file:${dir}`, cleanup: () => rm(dir, { recursive: true, force: true }) };
    },
  },
  {
    name: 'postgres',
    create: async () => {
      const database = await createTestDatabase('sh_archive_run');
      return { location: database.url, cleanup: () => database.drop(), database };
    },
  },
];

/**
 * Runs the child script `childPath` with `args` (`name` names it in the harness' reports): 'killed' (it killed
 * itself) or 'finished' (exit 0); any other end rejects with its stderr.
 */
export function runFaultChild(childPath: string, name: string, args: string[]): Promise<string> {
  const child = spawn(process.execPath, [childPath, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  watchChild(child, name, { exitExpected: true });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (signal === 'SIGKILL') resolve('killed');
      else if (code === 0) resolve('finished');
      else reject(new Error(`child exited with ${String(code)}: ${stderr}`));
    });
  });
}

/** A suite's archive: its location and its opened backend, once the suite's `beforeAll` ran. */
export interface FaultArchive {
  readonly location: string;
  readonly archive: ArchiveBackend;
}

/** Registers the suite's hooks: a fresh location from `create`, its backend opened; both closed and removed after. */
export function faultArchive(create: FaultLocation['create']): FaultArchive {
  let cleanup: () => Promise<void> = async () => {};
  const state = { location: '', archive: undefined as ArchiveBackend | undefined };
  beforeAll(async () => {
    const created = await create();
    cleanup = created.cleanup;
    state.location = created.location;
    state.archive = archiveBackendFor(created.location);
    await state.archive.open();
  });
  afterAll(async () => {
    await state.archive?.close();
    await cleanup();
  });
  return {
    get location() {
      return state.location;
    },
    get archive() {
      if (state.archive === undefined) throw new Error('the archive opens in beforeAll');
      return state.archive;
    },
  };
}
