// The file backend's names and files: what a directory name may hold, and what a damaged or foreign file does.
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { ArchiveUnavailableError } from '../../server/archive/archive-backend.ts';
import { FileArchive } from '../../server/archive/file/file-archive.ts';
import { isSessionDirName, sessionDirName, sessionIdOfDirName } from '../../server/archive/file/file-names.ts';
import { StoreDataError } from '../../server/store/event-store.ts';
import { run } from './archive-helpers.ts';

const EPOCH = '4d1f0a52-8c0e-4f0b-a7a9-7f3e2b1c9d11';
const dirs: string[] = [];

afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function opened(): Promise<{ dir: string; backend: FileArchive }> {
  const dir = await mkdtemp(join(tmpdir(), 'sh-archive-format-'));
  dirs.push(dir);
  const backend = new FileArchive({ dir });
  await backend.open();
  return { dir, backend };
}

describe('file archive names and files', () => {
  test('directory names are [0-9a-f] only, at most 201 characters, and spell short ids back', () => {
    const ids = ['a', 'acme/../../etc/passwd', 'A', 'ü/😀 x', '.', '..', 'x'.repeat(100), 'é'.repeat(256)];
    const names = ids.map(sessionDirName);
    expect(new Set(names.map((name) => name.toLowerCase())).size).toBe(ids.length);
    for (const [at, name] of names.entries()) {
      expect(name).toMatch(/^[xh][0-9a-f]+$/);
      expect(name.length).toBeLessThanOrEqual(201);
      expect(isSessionDirName(name)).toBe(true);
      const bytes = Buffer.byteLength(ids[at]!);
      expect(sessionIdOfDirName(name)).toBe(bytes <= 100 ? ids[at] : undefined);
    }
    expect(isSessionDirName('index')).toBe(false);
    expect(isSessionDirName('x0')).toBe(false);
  });

  test('a damaged index is DATA_CORRUPTED on describe and read', async () => {
    const { dir, backend } = await opened();
    await backend.append(run('acme/index', EPOCH, 0, 10));
    const index = join(dir, 'sessions', sessionDirName('acme/index'), 'index');
    const bytes = await readFile(index);
    bytes[bytes.byteLength - 3] = bytes[bytes.byteLength - 3]! ^ 0x01;
    await writeFile(index, bytes);
    await expect(backend.describe('acme/index')).rejects.toBeInstanceOf(StoreDataError);
    await expect(backend.read('acme/index', 0, 10, 1000)).rejects.toMatchObject({ code: 'DATA_CORRUPTED' });
  });

  test("an index in another session's directory is DATA_CORRUPTED, not that session's events", async () => {
    const { dir, backend } = await opened();
    await backend.append(run('acme/one', EPOCH, 0, 5));
    await backend.append(run('acme/two', EPOCH, 0, 5));
    const sessions = join(dir, 'sessions');
    await writeFile(
      join(sessions, sessionDirName('acme/two'), 'index'),
      await readFile(join(sessions, sessionDirName('acme/one'), 'index')),
    );
    await expect(backend.read('acme/two', 0, 10, 1000)).rejects.toBeInstanceOf(StoreDataError);
  });

  test('a missing segment is DATA_CORRUPTED on read, and on a retried append or a rewrite that needs it', async () => {
    const { dir, backend } = await opened();
    await backend.append(run('acme/lost', EPOCH, 0, 5000));
    const sessionDir = join(dir, 'sessions', sessionDirName('acme/lost'));
    const segment = (await readdir(sessionDir)).filter((name) => name.endsWith('.seg')).sort()[0]!;
    await rm(join(sessionDir, segment));
    const reader = new FileArchive({ dir });
    await reader.open();
    await expect(reader.read('acme/lost', 0, 10, 100_000)).rejects.toMatchObject({ code: 'DATA_CORRUPTED' });
    await expect(reader.append(run('acme/lost', EPOCH, 0, 10))).rejects.toMatchObject({ code: 'DATA_CORRUPTED' });
    await expect(reader.rewrite('acme/lost', EPOCH, new Map([[1, new Uint8Array([0x90])]]))).rejects.toBeInstanceOf(
      StoreDataError,
    );
  });

  test('a directory of a newer format, or of something else, is refused at open', async () => {
    const { dir } = await opened();
    await writeFile(join(dir, 'FORMAT'), 'session-hub archive 2\n');
    await expect(new FileArchive({ dir }).open()).rejects.toThrow(/newer than this version/);
    await writeFile(join(dir, 'FORMAT'), 'something else\n');
    await expect(new FileArchive({ dir }).open()).rejects.toBeInstanceOf(ArchiveUnavailableError);
  });
});
