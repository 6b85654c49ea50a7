// The file archive under faults: a writer killed with SIGKILL at every step of a write (a child process, so the kill
// is real), a full disk (a small tmpfs) and a read-only file system (a tmpfs remounted read-only). Mounting needs
// root, which the test machines and CI are.
import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, test } from 'vitest';
import { ArchiveUnavailableError } from '../../server/archive/archive-backend.ts';
import { FileArchive, type FileArchiveStep } from '../../server/archive/file/file-archive.ts';
import { sessionDirName } from '../../server/archive/file/file-names.ts';
import { hexes, readAll, run } from './archive-helpers.ts';
import { runFaultChild } from './fault-children.ts';
import { appended, before, FAULT_EPOCH, FAULT_SESSION, faultOperation, rewritten } from './file-fault-plan.ts';

const childPath = fileURLToPath(new URL('./file-fault-child.ts', import.meta.url));
const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'sh-archive-fault-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Runs the child until it is killed at `step` (or finishes); resolves with how it ended. */
function runChild(dir: string, operation: string, step: FileArchiveStep, nth: number): Promise<string> {
  const name = `archive fault child (${operation} at ${step} #${nth})`;
  return runFaultChild(childPath, name, [dir, operation, step, String(nth)]);
}

async function archiveWith(dir: string, ...segments: (typeof before)[]): Promise<void> {
  const backend = new FileArchive({ dir });
  await backend.open();
  for (const segment of segments) await backend.append(segment);
  await backend.close();
}

const oldBodies = hexes(before.bodies);
const appendedBodies = hexes([...before.bodies, ...appended.bodies]);
const rewrittenBodies = hexes([...before.bodies, ...appended.bodies].map((body, seq) => rewritten.get(seq) ?? body));

const cases: {
  operation: string;
  step: FileArchiveStep;
  nth: number;
  setup: (typeof before)[];
  old: string[];
  done: string[];
}[] = [];
for (const [step, nth] of [
  ['segment-temp-written', 1],
  ['segment-temp-written', 2],
  ['segments-renamed', 1],
  ['segments-synced', 1],
  ['index-temp-written', 1],
  ['index-renamed', 1],
  ['committed', 1],
] as const) {
  cases.push({ operation: 'append', step, nth, setup: [before], old: oldBodies, done: appendedBodies });
  cases.push({
    operation: 'rewrite',
    step,
    nth,
    setup: [before, appended],
    old: appendedBodies,
    done: rewrittenBodies,
  });
}
cases.push({
  operation: 'delete',
  step: 'trash-moved',
  nth: 1,
  setup: [before, appended],
  old: appendedBodies,
  done: [],
});

describe('file archive: a writer killed at each step', () => {
  test.each(cases)(
    '$operation killed at $step #$nth: the old or the new state, never half; the retry completes',
    async (plan) => {
      const dir = await tempDir();
      await archiveWith(dir, ...plan.setup);
      expect(await runChild(dir, plan.operation, plan.step, plan.nth)).toBe('killed');

      const reader = new FileArchive({ dir });
      await reader.open();
      const seen = hexes((await readAll(reader, FAULT_SESSION, 1000)).bodies);
      expect([plan.old, plan.done]).toContainEqual(seen);
      await faultOperation(reader, plan.operation);
      expect(hexes((await readAll(reader, FAULT_SESSION, 333)).bodies)).toEqual(plan.done);

      // Nothing is left behind: the session's directory holds the index and the segments it names, the trash nothing.
      expect(await readdir(join(dir, 'trash'))).toEqual([]);
      if (plan.operation !== 'delete') {
        await reader.append(run(FAULT_SESSION, FAULT_EPOCH, 9100, 1));
        const names = await readdir(join(dir, 'sessions', sessionDirName(FAULT_SESSION)));
        expect(names.filter((name) => name.includes('.tmp-'))).toEqual([]);
        expect(names.filter((name) => name.endsWith('.seg')).length).toBe(3);
      }
      await reader.close();
    },
  );
});

/** Mounts a tmpfs of `size` on a new directory; unmounted after the test. */
async function tmpfs(size: string): Promise<string> {
  const dir = await tempDir();
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]);
  cleanups.push(async () => {
    execFileSync('umount', [dir]);
  });
  return dir;
}

function incompressible(sessionId: string, firstSeq: number, count: number, size: number): typeof before {
  const bodies: Uint8Array[] = [];
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    bodies.push(new Uint8Array(Buffer.from(crypto.getRandomValues(new Uint8Array(size)))));
    times.push(1_700_000_000_000 + firstSeq + i);
  }
  return { sessionId, epoch: FAULT_EPOCH, firstSeq, bodies, times };
}

describe('file archive: a full or read-only file system', () => {
  test('a full disk rejects the append with ArchiveUnavailableError, leaves nothing, and later appends work', async () => {
    const dir = await tmpfs('2m');
    const backend = new FileArchive({ dir });
    await backend.open();
    const first = incompressible('acme/full', 0, 10, 1000);
    await backend.append(first);
    const sessionDir = join(dir, 'sessions', sessionDirName('acme/full'));
    const filesBefore = await readdir(sessionDir);
    const tooBig = incompressible('acme/full', 10, 3000, 1000);
    await expect(backend.append(tooBig)).rejects.toBeInstanceOf(ArchiveUnavailableError);
    await expect(backend.append(tooBig)).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    expect((await readdir(sessionDir)).sort()).toEqual([...filesBefore].sort());
    expect(await backend.describe('acme/full')).toMatchObject({ nextSeq: 10 });
    expect(hexes((await readAll(backend, 'acme/full')).bodies)).toEqual(hexes(first.bodies));
    await backend.append(incompressible('acme/full', 10, 20, 1000));
    expect(await backend.describe('acme/full')).toMatchObject({ nextSeq: 30 });
    await backend.close();
  });

  test('a read-only file system rejects writes with ArchiveUnavailableError and writes nothing; reads go on', async () => {
    const dir = await tmpfs('8m');
    const backend = new FileArchive({ dir });
    await backend.open();
    await backend.append(before);
    await backend.close();
    execFileSync('mount', ['-o', 'remount,ro', dir]);
    const readOnly = new FileArchive({ dir });
    await readOnly.open();
    const sessionDir = join(dir, 'sessions', sessionDirName(FAULT_SESSION));
    const filesBefore = await readdir(sessionDir);
    await expect(readOnly.append(appended)).rejects.toBeInstanceOf(ArchiveUnavailableError);
    await expect(readOnly.append(run('acme/new', FAULT_EPOCH, 0, 1))).rejects.toBeInstanceOf(ArchiveUnavailableError);
    await expect(
      readOnly.rewrite(FAULT_SESSION, FAULT_EPOCH, new Map([[1, before.bodies[2]!]])),
    ).rejects.toBeInstanceOf(ArchiveUnavailableError);
    await expect(readOnly.delete(FAULT_SESSION)).rejects.toBeInstanceOf(ArchiveUnavailableError);
    expect(await readdir(sessionDir)).toEqual(filesBefore);
    expect(await readdir(join(dir, 'sessions'))).toEqual([sessionDirName(FAULT_SESSION)]);
    expect(hexes((await readAll(readOnly, FAULT_SESSION)).bodies)).toEqual(oldBodies);
    await readOnly.close();

    const empty = await tmpfs('1m');
    execFileSync('mount', ['-o', 'remount,ro', empty]);
    await expect(new FileArchive({ dir: join(empty, 'archive') }).open()).rejects.toBeInstanceOf(
      ArchiveUnavailableError,
    );
  });
});
