import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync } from 'node:zlib';
import { FileArchive } from '../../server/archive/file/file-archive.ts';
import { sessionDirName } from '../../server/archive/file/file-names.ts';
import type { ArchiveHarness } from './archive-harness.ts';

/** Every file in a session's directory. */
async function sessionFiles(dir: string, sessionId: string): Promise<string[]> {
  const sessionDir = join(dir, 'sessions', sessionDirName(sessionId));
  return (await readdir(sessionDir)).map((name) => join(sessionDir, name));
}

/** A file archive in a new temporary directory. */
export async function openFileHarness(): Promise<ArchiveHarness> {
  const dir = await mkdtemp(join(tmpdir(), 'sh-archive-'));
  const backend = new FileArchive({ dir });
  await backend.open();
  return {
    backend,
    reopen: async () => {
      const again = new FileArchive({ dir });
      await again.open();
      return again;
    },
    corrupt: async (sessionId) => {
      const segment = (await sessionFiles(dir, sessionId)).filter((path) => path.endsWith('.seg')).sort()[0];
      if (segment === undefined) throw new Error('no segment to corrupt');
      const bytes = await readFile(segment);
      const at = 40 + Math.floor((bytes.byteLength - 40) / 2);
      bytes[at] = bytes[at]! ^ 0x55;
      await writeFile(segment, bytes);
    },
    liveBytesContain: async (sessionId, marker) => {
      for (const path of await sessionFiles(dir, sessionId)) {
        const bytes = await readFile(path);
        if (bytes.includes(marker)) return true;
        if (path.endsWith('.seg') && brotliDecompressSync(bytes.subarray(40)).includes(marker)) return true;
      }
      return false;
    },
    close: async () => {
      await backend.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
