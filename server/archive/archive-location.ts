import { fileURLToPath } from 'node:url';
import type { ArchiveBackend } from './archive-backend.ts';
import { FileArchive } from './file/file-archive.ts';
import { PostgresArchive } from './postgres/pg-archive.ts';

/** An `--archive` location that names no backend this hub has, or names one badly. */
export class ArchiveLocationError extends Error {
  override readonly name = 'ArchiveLocationError';
  readonly code = 'BAD_ARCHIVE_LOCATION';
}

const FORMS = 'file:<dir> (e.g. file:/var/lib/session-hub/archive) or postgres://user@host:5432/db';

/** The directory of a `file:` location: `file:<path>` (relative to the working directory, or absolute) or a `file://` URL. */
function fileDir(location: string): string {
  if (location.startsWith('file://')) {
    try {
      return fileURLToPath(location);
    } catch (error) {
      throw new ArchiveLocationError(`archive location ${JSON.stringify(location)}: not a file URL (${String(error)})`);
    }
  }
  const dir = location.slice('file:'.length);
  if (dir.length === 0) throw new ArchiveLocationError(`archive location "file:" needs a directory: ${FORMS}`);
  return dir;
}

/** What a backend is opened with besides its location. */
export interface ArchiveBackendOptions {
  /**
   * Where trouble outside any call goes (a PostgreSQL connection that broke while idle); default
   * `process.emitWarning`. A hub node passes its logger.
   */
  readonly onError?: (error: Error) => void;
}

/**
 * The archive backend a location names (not opened yet): `file:<dir>` or `postgres://…` / `postgresql://…`.
 * Anything else throws `ArchiveLocationError` saying which forms there are.
 */
export function archiveBackendFor(location: string, options: ArchiveBackendOptions = {}): ArchiveBackend {
  if (typeof location !== 'string' || location.trim() !== location || location.length === 0) {
    throw new ArchiveLocationError(`archive location ${JSON.stringify(location)}: expected ${FORMS}`);
  }
  if (location.startsWith('file:')) return new FileArchive({ dir: fileDir(location) });
  if (location.startsWith('postgres://') || location.startsWith('postgresql://')) {
    let url: URL;
    try {
      url = new URL(location);
    } catch {
      throw new ArchiveLocationError(`archive location: not a valid PostgreSQL URL (${FORMS})`);
    }
    if (url.hostname === '' && !url.searchParams.has('host')) {
      throw new ArchiveLocationError('archive location: a PostgreSQL URL needs a host (postgres://user@host:5432/db)');
    }
    return new PostgresArchive({ url: location, ...options });
  }
  throw new ArchiveLocationError(`archive location ${JSON.stringify(location)}: expected ${FORMS}`);
}
