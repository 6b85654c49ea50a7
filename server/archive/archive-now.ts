import { randomBytes } from 'node:crypto';
import type { EventStore } from '../store/event-store.ts';
import type { ArchiveBackend } from './archive-backend.ts';
import { archiveSession, type ArchiveRunResult } from './archive-run.ts';
import { restoreSession, type RestoreRunResult } from './restore-run.ts';
import { TieredStore } from './tiered-store.ts';

/**
 * The admin "archive this session now" of a hub node (`POST /v1/sessions/:id/archive`): one run on the hot store
 * (the configured store, unwrapped from its `TieredStore`) and the hub's archive, with a lease token of its own;
 * with `idempotencyWindowMs`, the run drops the trimmed appends' keys older than the window.
 */
export function archiveNowOf(
  configured: EventStore,
  archive: ArchiveBackend,
  nodeName: string,
  idempotencyWindowMs?: number,
): (sessionId: string) => Promise<ArchiveRunResult> {
  const store = configured instanceof TieredStore ? configured.hot : configured;
  const window = idempotencyWindowMs === undefined ? {} : { idempotencyWindowMs };
  return (sessionId) =>
    archiveSession({
      store,
      archive,
      sessionId,
      token: `${nodeName}:admin:${randomBytes(6).toString('hex')}`,
      ...window,
    });
}

/**
 * The admin "restore this session" of a hub node (`POST /v1/sessions/:id/restore`): one restore on the hot store and
 * the hub's archive, with a lease token of its own; `force` skips the size limits (`RESTORE_LIMITS`).
 */
export function restoreNowOf(
  configured: EventStore,
  archive: ArchiveBackend,
  nodeName: string,
): (sessionId: string, options: { readonly force: boolean }) => Promise<RestoreRunResult> {
  const store = configured instanceof TieredStore ? configured.hot : configured;
  return (sessionId, { force }) =>
    restoreSession({
      store,
      archive,
      sessionId,
      force,
      token: `${nodeName}:restore:${randomBytes(6).toString('hex')}`,
    });
}
