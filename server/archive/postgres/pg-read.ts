import type pg from 'pg';
import { StoreDataError, type StoredPage } from '../../store/event-store.ts';
import { ArchiveUnavailableError } from '../archive-backend.ts';
import { decodeSegment, type SegmentEvents } from '../segment-codec.ts';
import type { SegmentCache } from '../segment-cache.ts';
import { expectedOf, toInt, type SegmentRow } from './pg-rows.ts';

const SEGMENTS = 'session_hub_archive_segments';
const SESSIONS = 'session_hub_archive_sessions';

/** The session row joined with the metadata of the segments that may hold `$2 .. $3 - 1`: one statement, one snapshot. */
const PAGE_PLAN = `
  SELECT s.epoch, s.start_seq, s.next_seq, g.first_seq, g.count, g.bytes, g.sha256
    FROM ${SESSIONS} s
    LEFT JOIN LATERAL (
      SELECT first_seq, count, bytes, sha256 FROM ${SEGMENTS}
       WHERE session_id = s.session_id AND first_seq < $3
         AND first_seq >= (SELECT coalesce(max(first_seq), 0) FROM ${SEGMENTS} WHERE session_id = $1 AND first_seq <= $2)
       ORDER BY first_seq
    ) g ON true
   WHERE s.session_id = $1`;

const SEGMENT_DATA = `SELECT first_seq, count, bytes, sha256, data FROM ${SEGMENTS} WHERE session_id = $1 AND first_seq = ANY($2::bigint[])`;

interface PlanRow {
  readonly epoch: string;
  readonly start_seq: string;
  readonly next_seq: string;
  readonly first_seq: string | null;
  readonly count: number | null;
  readonly bytes: string | null;
  readonly sha256: Buffer | null;
}

/** The segments changed between the plan and the fetch of their data (a rewrite, merge or delete committed). */
class ChangedMeanwhile extends Error {}

function keyOf(sessionId: string, firstSeq: string, sha256: Buffer): string {
  return `${sessionId}\u0000${firstSeq}\u0000${sha256.toString('hex')}`;
}

async function segmentsOf(
  pool: pg.Pool,
  cache: SegmentCache,
  sessionId: string,
  metas: readonly SegmentRow[],
): Promise<SegmentEvents[]> {
  const found = new Map<string, SegmentEvents>();
  for (const meta of metas) {
    const cached = cache.get(keyOf(sessionId, meta.first_seq, meta.sha256));
    if (cached !== undefined) found.set(meta.first_seq, cached);
  }
  const missing = metas.filter((meta) => !found.has(meta.first_seq));
  if (missing.length > 0) {
    const rows = await pool.query<SegmentRow>({
      name: 'session-hub-archive-segment-data',
      text: SEGMENT_DATA,
      values: [sessionId, missing.map((meta) => meta.first_seq)],
    });
    for (const meta of missing) {
      const row = rows.rows.find((candidate) => candidate.first_seq === meta.first_seq);
      if (row === undefined || !row.sha256.equals(meta.sha256)) throw new ChangedMeanwhile();
      const expected = expectedOf(row);
      const where = `${expected.firstSeq} of session ${JSON.stringify(sessionId)}`;
      const events = await decodeSegment(row.data!, expected, where);
      cache.set(keyOf(sessionId, row.first_seq, row.sha256), events);
      found.set(meta.first_seq, events);
    }
  }
  return metas.map((meta) => found.get(meta.first_seq)!);
}

async function readOnce(
  pool: pg.Pool,
  cache: SegmentCache,
  sessionId: string,
  fromSeq: number,
  limit: number,
  maxBytes: number,
): Promise<StoredPage> {
  // Named: each pooled connection parses and plans it once, not on every page of a catch-up.
  const plan = await pool.query<PlanRow>({
    name: 'session-hub-archive-page-plan',
    text: PAGE_PLAN,
    values: [sessionId, fromSeq, fromSeq + limit],
  });
  const head = plan.rows[0];
  const bodies: Uint8Array[] = [];
  const times: number[] = [];
  if (head === undefined) return { epoch: undefined, firstSeq: fromSeq, bodies, times };
  const page = { epoch: head.epoch, firstSeq: fromSeq, bodies, times };
  if (fromSeq < toInt(head.start_seq, 'start_seq') || fromSeq >= toInt(head.next_seq, 'next_seq')) return page;
  const metas: SegmentRow[] = [];
  for (const row of plan.rows) {
    if (row.first_seq === null || row.count === null || row.bytes === null || row.sha256 === null) continue;
    metas.push({ first_seq: row.first_seq, count: row.count, bytes: row.bytes, sha256: row.sha256 });
  }
  let bytes = 0;
  let seq = fromSeq;
  for (const segment of await segmentsOf(pool, cache, sessionId, metas)) {
    if (segment.firstSeq > seq)
      throw new StoreDataError(`postgres archive of ${JSON.stringify(sessionId)}: gap at ${seq}`);
    for (let i = seq - segment.firstSeq; i < segment.bodies.length; i++, seq++) {
      const body = segment.bodies[i]!;
      if (bodies.length === limit || (bodies.length > 0 && bytes + body.byteLength > maxBytes)) return page;
      bodies.push(body);
      times.push(segment.times[i]!);
      bytes += body.byteLength;
    }
  }
  if (bodies.length === 0) {
    throw new StoreDataError(`postgres archive of ${JSON.stringify(sessionId)}: no segment holds ${fromSeq}`);
  }
  return page;
}

/**
 * One page of a session's archive: one statement for the session row and the covering segments' metadata, then
 * the data of the segments not in the cache (decoded, verified, cached by checksum). A segment rewritten or
 * removed between the two (its checksum changed, or it is gone) makes the page read again.
 */
export async function readPostgresPage(
  pool: pg.Pool,
  cache: SegmentCache,
  sessionId: string,
  fromSeq: number,
  limit: number,
  maxBytes: number,
): Promise<StoredPage> {
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      return await readOnce(pool, cache, sessionId, fromSeq, limit, maxBytes);
    } catch (error) {
      if (!(error instanceof ChangedMeanwhile)) throw error;
    }
  }
  throw new ArchiveUnavailableError(
    `postgres archive of ${JSON.stringify(sessionId)}: it kept changing under the read`,
  );
}
