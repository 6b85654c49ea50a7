import { randomBytes } from 'node:crypto';
import { open, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { ArchiveUnavailableError } from '../archive-backend.ts';

/** The code of a Node file-system error, if it is one. */
export function fsCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  return typeof error.code === 'string' ? error.code : undefined;
}

export function isMissing(error: unknown): boolean {
  return fsCode(error) === 'ENOENT';
}

/** A file-system failure as the seam's `ArchiveUnavailableError` (full disk, read-only, I/O error, permissions). */
export function unavailable(what: string, error: unknown): ArchiveUnavailableError {
  if (error instanceof ArchiveUnavailableError) return error;
  const code = fsCode(error);
  const why = code ?? (error instanceof Error ? error.message : String(error));
  return new ArchiveUnavailableError(`file archive: ${what} failed (${why})`, { cause: error });
}

/** A random tag for new file names (names are never reused, so no reader mistakes a new file for an old one). */
export function randomTag(): string {
  return randomBytes(6).toString('hex');
}

/** fsync a directory, so that the names created, renamed or removed in it are durable. */
export async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Removes a file; a missing one is fine. */
export async function removeQuietly(path: string): Promise<void> {
  try {
    await unlink(path);
  } catch {
    // best effort: a leftover is swept by the session's next write
  }
}

/**
 * Writes `data` to `dir/name` so that the name holds either nothing (or its old content) or all of `data`, durably:
 * a temporary name (`name.tmp-<tag>`, created exclusively), fsync, then rename over `name`. The caller fsyncs `dir`
 * once after its renames. On failure the temporary file is removed and nothing is left under `name`.
 */
export async function writeFileDurably(
  dir: string,
  name: string,
  data: Uint8Array,
  beforeRename?: () => Promise<void>,
): Promise<void> {
  const temp = join(dir, `${name}.tmp-${randomTag()}`);
  try {
    const handle = await open(temp, 'wx');
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (beforeRename !== undefined) await beforeRename();
    await rename(temp, join(dir, name));
  } catch (error) {
    await removeQuietly(temp);
    throw error;
  }
}
