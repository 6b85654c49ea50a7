import type { SessionEvent } from '../../../shared/index.ts';
import { checkTrimRequest } from '../request-check.ts';
import type { TrimRequest, TrimResult } from '../trim.ts';
import { checkNotTrimmed } from '../trimmed-error.ts';
import { checkPruneRequest } from '../idempotency-prune-check.ts';
import {
  DEFAULT_PRUNE_COUNT,
  type IdempotencyPruneRequest,
  type IdempotencyPruneResult,
} from '../idempotency-prune.ts';
import { nextSeqOf, type MemorySession } from './memory-backend.ts';

/**
 * `EventStore.trim` of the memory engine, on the session's record (synchronous, so atomic): the events below
 * `beforeSeq` leave `events`, `firstSeq` moves up. Same answers as the Redis engine's script.
 */
export function trimSession(session: MemorySession | undefined, request: TrimRequest): TrimResult {
  checkTrimRequest(request);
  const epoch = session?.epoch ?? '';
  const firstSeq = session?.firstSeq ?? 0;
  const headSeq = nextSeqOf(session) - 1;
  const unchanged = { epoch, firstSeq, headSeq, removed: 0 };
  if (session === undefined || epoch !== request.epoch) return { status: 'conflict', ...unchanged };
  if (request.beforeSeq > headSeq + 1) return { status: 'beyond-head', ...unchanged };
  if (request.beforeSeq <= firstSeq) return { status: 'trimmed', ...unchanged };
  const removed = request.beforeSeq - firstSeq;
  session.events.splice(0, removed);
  session.firstSeq = request.beforeSeq;
  return { status: 'trimmed', epoch, firstSeq: request.beforeSeq, headSeq, removed };
}

/**
 * `EventStore.pruneIdempotencyKeys` of the memory engine, on the session's idempotency map: the cursor is 1 + the
 * number of keys kept before the walk's position (a map keeps its order and adds at its end, and the keys this walk drops
 * are all at or after it). Same answers as the Redis engine's script.
 */
export function pruneSessionKeys(
  session: MemorySession | undefined,
  request: IdempotencyPruneRequest,
): IdempotencyPruneResult {
  checkPruneRequest(request);
  if (session === undefined) return { cursor: '', removed: 0, youngestKept: 0 };
  const count = request.count ?? DEFAULT_PRUNE_COUNT;
  let position = request.cursor === '' ? 0 : Number(request.cursor) - 1;
  let index = 0;
  let looked = 0;
  let removed = 0;
  let youngestKept = 0;
  for (const [key, record] of session.idempotency) {
    if (index++ < position) continue;
    if (looked++ === count) return { cursor: String(position + 1), removed, youngestKept };
    const trimmed = record.lastSeq < session.firstSeq;
    if (trimmed && record.time < request.olderThan) {
      session.idempotency.delete(key);
      removed++;
      continue;
    }
    if (trimmed) youngestKept = Math.max(youngestKept, record.time);
    position++;
  }
  return { cursor: '', removed, youngestKept };
}

/** Up to `limit` events of the session from `fromSeq`; `StoreTrimmedError` below its first seq. */
export function eventsOf(
  sessionId: string,
  session: MemorySession | undefined,
  fromSeq: number,
  limit: number,
): readonly SessionEvent[] {
  if (session === undefined) return [];
  checkNotTrimmed(sessionId, fromSeq, session.firstSeq, session.epoch);
  const start = fromSeq - session.firstSeq;
  return session.events.slice(start, start + limit);
}
