import { StoreDataError, StoreRequestError } from '../../store/event-store.ts';
import { ArchiveConflictError, ArchiveUnavailableError } from '../archive-backend.ts';
import { ArchiveSchemaError } from './pg-schema.ts';

/** Errors that already say what happened (the seam's own), passed through as they are. */
function isSeamError(error: unknown): boolean {
  return (
    error instanceof ArchiveUnavailableError ||
    error instanceof ArchiveConflictError ||
    error instanceof StoreDataError ||
    error instanceof StoreRequestError ||
    error instanceof ArchiveSchemaError
  );
}

/** The SQLSTATE or Node error code of a failure, if it has one. */
function errorCode(error: unknown): string {
  if (typeof error !== 'object' || error === null || !('code' in error)) return '';
  return typeof error.code === 'string' ? error.code : '';
}

/**
 * Any other failure of a PostgreSQL call as `ArchiveUnavailableError`: the server is down, restarting or refused
 * the connection (class 08, 57), the transaction is read-only (25006), the disk or memory is full (class 53), the
 * connection was terminated (57P01), or anything else the server or driver reported. Its transaction was rolled back
 * (or never committed), so nothing was written.
 */
export function pgFailure(what: string, error: unknown): Error {
  if (isSeamError(error)) return error as Error;
  const code = errorCode(error);
  const message = error instanceof Error ? error.message : String(error);
  return new ArchiveUnavailableError(
    `postgres archive: ${what} failed (${code === '' ? message : `${code}: ${message}`})`,
    {
      cause: error,
    },
  );
}
