import { HubErrorCode } from '../../shared/protocol.ts';
import { ArchiveRunAbortedError, type ArchiveRunResult } from '../archive/archive-run.ts';
import { RestoreAbortedError, type RestoreRunResult } from '../archive/restore-run.ts';
import { HubError } from '../hub-error.ts';
import type { HttpReply } from './http-reply.ts';

/** Archives one session now (the hub's archive, this node's lease token); absent when the hub has no archive. */
export type ArchiveNow = (sessionId: string) => Promise<ArchiveRunResult>;

/**
 * `POST /v1/sessions/:id/archive` (admin): archive the session's prefix now, as far as the cut allows (the last
 * turn boundary, the latest snapshot's seq + 1), then trim it from the hot store. `{ sessionId, status }` with
 * `cut`, `appended` and `trimmed` when `status` is `archived`; `busy` (another node archives it), `idle` (nothing
 * to archive), `gap` (the hot log was trimmed past the archive) and `aborted` (the log changed during the run,
 * nothing trimmed) are answers too. A hub without an archive: NOT_FOUND. An archive that refuses the write:
 * STORE_UNAVAILABLE, nothing trimmed.
 */
export async function archiveReply(sessionId: string, archiveNow: ArchiveNow | undefined): Promise<HttpReply> {
  if (archiveNow === undefined) throw new HubError(HubErrorCode.NOT_FOUND, 'this hub has no archive (serve --archive)');
  try {
    return { status: 200, body: { sessionId, ...(await archiveNow(sessionId)) } };
  } catch (error) {
    if (!(error instanceof ArchiveRunAbortedError)) throw error;
    return { status: 200, body: { sessionId, status: 'aborted', reason: error.message } };
  }
}

/** Restores one session's archived prefix now (the hub's archive, this node's lease token). */
export type RestoreNow = (sessionId: string, options: { readonly force: boolean }) => Promise<RestoreRunResult>;

/**
 * `POST /v1/sessions/:id/restore[?force=true]` (admin): bring the session's archived prefix back into the hot store,
 * then delete its archive (server/archive/restore-run.ts). `{ sessionId, status }` with `firstSeq`, `restored`,
 * `bytes` and `copied` when `status` is `restored`; `too-large` (with `events`, `bytes`, `maxEvents`, `maxBytes`:
 * over the hub's restore limits, nothing changed; `force=true` skips them), `busy`, `idle` (nothing archived), `gap`
 * (the hot log was trimmed past the archive) and `aborted` (the log changed during the run: the archive stays) are
 * answers too. A hub without an archive: NOT_FOUND.
 */
export async function restoreReply(
  sessionId: string,
  url: URL | undefined,
  restoreNow: RestoreNow | undefined,
): Promise<HttpReply> {
  if (restoreNow === undefined) throw new HubError(HubErrorCode.NOT_FOUND, 'this hub has no archive (serve --archive)');
  const force = url?.searchParams.get('force') ?? null;
  if (force !== null && force !== 'true' && force !== 'false') {
    throw new HubError(HubErrorCode.BAD_REQUEST, 'force must be true or false');
  }
  try {
    return { status: 200, body: { sessionId, ...(await restoreNow(sessionId, { force: force === 'true' })) } };
  } catch (error) {
    if (!(error instanceof RestoreAbortedError)) throw error;
    return { status: 200, body: { sessionId, status: 'aborted', reason: error.message } };
  }
}
