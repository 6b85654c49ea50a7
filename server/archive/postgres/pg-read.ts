import type pg from 'pg';
import { StoreDataError, type StoredPage } from '../../store/event-store.ts';
import { ArchiveUnavailableError } from '../archive-backend.ts';
import { decodeSegment, type SegmentEvents } from '../segment-codec.ts';
import type { SegmentCache } from '../segment-cache.ts';
import type { SegmentReadAhead } from '../segment-read-ahead.ts';
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

/**
 * Read-ahead (`SegmentReadAhead`, one per backend instance): the segment after the one a reader just entered is
 * fetched and decoded in the background while the reader's pages come from the current one (a 4,096-event segment
 * is four pages), so a catch-up of a session nobody read lately does not wait for each segment's fetch and decode
 * in turn. Its loads are keyed by session and first seq; `unread` holds the cache keys they filled that no page
 * used yet (a page that uses one is the reader entering that segment: the next one is fetched). What is
 * read ahead goes to the cache under its own checksum, so a page only uses it if its plan names the same content.
 */
/** More unread read-ahead keys than this (readers that stopped): the set is emptied. */
const MAX_UNREAD = 10_000;

/** The page reader's parts, one per backend instance: the pool, the cache of decoded segments, the read-ahead. */
export interface PageReader {
  readonly pool: pg.Pool;
  readonly cache: SegmentCache;
  readonly ahead: SegmentReadAhead;
  readonly unread: Set<string>;
}

/** Starts fetching the segment at `firstSeq` into the cache (if below `nextSeq`, none in flight). Never rejects. */
function readAhead(reader: PageReader, sessionId: string, firstSeq: number, nextSeq: number): void {
  const { pool, cache, unread } = reader;
  if (firstSeq >= nextSeq) return;
  reader.ahead.start(sessionId, String(firstSeq), async () => {
    const rows = await pool.query<SegmentRow>({
      name: 'session-hub-archive-segment-data',
      text: SEGMENT_DATA,
      values: [sessionId, [String(firstSeq)]],
    });
    const row = rows.rows[0];
    if (row === undefined) return;
    const cacheKey = keyOf(sessionId, row.first_seq, row.sha256);
    if (cache.get(cacheKey) !== undefined) return;
    const expected = expectedOf(row);
    const events = await decodeSegment(
      row.data!,
      expected,
      `${expected.firstSeq} of session ${JSON.stringify(sessionId)}`,
    );
    cache.set(cacheKey, events);
    if (unread.size >= MAX_UNREAD) unread.clear();
    unread.add(cacheKey);
  }); // a read-ahead that fails costs nothing: the page fetches the segment itself
}

/**
 * The decoded segments of `metas` (cached, read ahead, or fetched now), and whether the page entered a segment that
 * was not in the cache before (fetched now or read ahead and not used yet): the reader moves on, read ahead.
 */
async function segmentsOf(
  { pool, cache, ahead, unread }: PageReader,
  sessionId: string,
  metas: readonly SegmentRow[],
): Promise<{ segments: SegmentEvents[]; entered: boolean }> {
  // A fetch in flight for one of the page's segments is waited for rather than made twice.
  await Promise.all(metas.map((meta) => ahead.loading(sessionId, meta.first_seq)));
  const found = new Map<string, SegmentEvents>();
  let entered = false;
  for (const meta of metas) {
    const key = keyOf(sessionId, meta.first_seq, meta.sha256);
    const cached = cache.get(key);
    if (cached === undefined) continue;
    found.set(meta.first_seq, cached);
    if (unread.delete(key)) entered = true;
  }
  const missing = metas.filter((meta) => !found.has(meta.first_seq));
  if (missing.length > 0) {
    entered = true;
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
  return { segments: metas.map((meta) => found.get(meta.first_seq)!), entered };
}

async function readOnce(
  reader: PageReader,
  sessionId: string,
  fromSeq: number,
  limit: number,
  maxBytes: number,
): Promise<StoredPage> {
  // Named: each pooled connection parses and plans it once, not on every page of a catch-up.
  const plan = await reader.pool.query<PlanRow>({
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
  const { segments, entered } = await segmentsOf(reader, sessionId, metas);
  const last = segments.at(-1);
  if (entered && last !== undefined) {
    readAhead(reader, sessionId, last.firstSeq + last.bodies.length, toInt(head.next_seq, 'next_seq'));
  }
  for (const segment of segments) {
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
  reader: PageReader,
  sessionId: string,
  fromSeq: number,
  limit: number,
  maxBytes: number,
): Promise<StoredPage> {
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      return await readOnce(reader, sessionId, fromSeq, limit, maxBytes);
    } catch (error) {
      if (!(error instanceof ChangedMeanwhile)) throw error;
    }
  }
  throw new ArchiveUnavailableError(
    `postgres archive of ${JSON.stringify(sessionId)}: it kept changing under the read`,
  );
}
