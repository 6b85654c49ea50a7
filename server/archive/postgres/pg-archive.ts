import pg from 'pg';
import type { PoolClient } from 'pg';
import type { StoredPage } from '../../store/event-store.ts';
import { validateSessionId } from '../../store/session-id.ts';
import {
  ArchiveConflictError,
  type ArchiveBackend,
  type ArchivedSession,
  type ArchiveListOptions,
  type ArchiveListPage,
  type ArchiveSegment,
} from '../archive-backend.ts';
import { checkList, checkRead, checkRewrite, checkSegment } from '../archive-checks.ts';
import { alreadyArchived } from '../append-plan.ts';
import {
  decodeSegment,
  encodeSegment,
  splitRun,
  SEGMENT_MAX_BYTES,
  SEGMENT_MAX_EVENTS,
  type SegmentEvents,
} from '../segment-codec.ts';
import { SegmentCache } from '../segment-cache.ts';
import { SegmentReadAhead } from '../segment-read-ahead.ts';
import { pgFailure } from './pg-errors.ts';
import { readPostgresPage, type PageReader } from './pg-read.ts';
import { expectedOf, SESSION_COLUMNS, toArchivedSession, toInt, type SegmentRow, type SessionRow } from './pg-rows.ts';
import { migrateArchiveSchema } from './pg-schema.ts';

export interface PostgresArchiveOptions {
  /** `postgres://user:password@host:port/database` (any form `pg` accepts). */
  readonly url: string;
  /** Connections in the pool (default 4). */
  readonly maxConnections?: number;
  /** How long to wait for a connection (default 3000 ms). */
  readonly connectTimeoutMs?: number;
  /** Longest a statement may run (default 30,000 ms). */
  readonly statementTimeoutMs?: number;
  /** Bytes of decoded segments kept in memory for reads (default 32 MiB). */
  readonly cacheBytes?: number;
  /** A connection that failed while idle (the server restarted, or terminated it); default: a process warning. */
  readonly onError?: (error: Error) => void;
}

const SEGMENTS = 'session_hub_archive_segments';
const SESSIONS = 'session_hub_archive_sessions';

/**
 * The `postgres://…` archive: one row per session and one per segment (the same compressed, checksummed segment
 * format as the file backend), each write one transaction serialised per session by an advisory lock
 * (docs/storage.md#the-archive). The schema is created or migrated by `open`.
 */
export class PostgresArchive implements ArchiveBackend {
  readonly kind = 'postgres' as const;
  private readonly pool: pg.Pool;
  /** Decoded segments, keyed by session, first seq and checksum (a rewritten segment has another checksum). */
  private readonly cache: SegmentCache;
  private readonly ahead = new SegmentReadAhead();
  private readonly reader: PageReader;

  constructor(options: PostgresArchiveOptions) {
    this.cache = new SegmentCache(options.cacheBytes ?? 32 * 1024 * 1024);
    this.pool = new pg.Pool({
      connectionString: options.url,
      max: options.maxConnections ?? 4,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 3000,
      statement_timeout: options.statementTimeoutMs ?? 30_000,
      application_name: 'session-hub:archive',
    });
    this.reader = { pool: this.pool, cache: this.cache, ahead: this.ahead, unread: new Set() };
    const onError = options.onError ?? ((error: Error) => process.emitWarning(error));
    // An idle connection that breaks (server restart, pg_terminate_backend) must never be an uncaught error.
    this.pool.on('error', (error) => onError(pgFailure('an idle connection', error)));
  }

  async open(): Promise<void> {
    try {
      await migrateArchiveSchema(this.pool);
    } catch (error) {
      throw pgFailure('opening the archive schema', error);
    }
  }

  /** Runs `task` in one transaction on one connection; any failure rolls it back and is mapped by `pgFailure`. */
  private async transaction<T>(what: string, readOnly: boolean, task: (client: PoolClient) => Promise<T>): Promise<T> {
    let client: PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw pgFailure(what, error);
    }
    let broken = false;
    // A connection that breaks between two statements emits 'error': the next statement fails, never the process.
    const onClientError = (): void => {
      broken = true;
    };
    client.on('error', onClientError);
    try {
      await client.query(readOnly ? 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY' : 'BEGIN');
      const result = await task(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {
        broken = true;
      });
      throw pgFailure(what, error);
    } finally {
      client.off('error', onClientError);
      client.release(broken);
    }
  }

  private async lockSession(client: PoolClient, sessionId: string): Promise<ArchivedSession | undefined> {
    await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 29))', [sessionId]);
    const result = await client.query<SessionRow>(`SELECT ${SESSION_COLUMNS} FROM ${SESSIONS} WHERE session_id = $1`, [
      sessionId,
    ]);
    const row = result.rows[0];
    return row === undefined ? undefined : toArchivedSession(row);
  }

  /** Segment rows of a session from the one holding `fromSeq` up to (not including) `toSeq`, with or without data. */
  private async segmentRows(client: PoolClient, sessionId: string, fromSeq: number, toSeq: number) {
    const result = await client.query<SegmentRow>(
      `SELECT first_seq, count, bytes, sha256, data FROM ${SEGMENTS}
        WHERE session_id = $1 AND first_seq < $3
          AND first_seq >= (SELECT coalesce(max(first_seq), 0) FROM ${SEGMENTS} WHERE session_id = $1 AND first_seq <= $2)
        ORDER BY first_seq`,
      [sessionId, fromSeq, toSeq],
    );
    return result.rows;
  }

  private async decodeRows(sessionId: string, rows: readonly SegmentRow[]): Promise<SegmentEvents[]> {
    const decoded: SegmentEvents[] = [];
    for (const row of rows) {
      const expected = expectedOf(row);
      decoded.push(
        await decodeSegment(row.data!, expected, `${expected.firstSeq} of session ${JSON.stringify(sessionId)}`),
      );
    }
    return decoded;
  }

  /** Events `fromSeq .. fromSeq + count - 1` (all archived), read in the transaction. */
  private async readRange(client: PoolClient, sessionId: string, fromSeq: number, count: number) {
    const segments = await this.decodeRows(
      sessionId,
      await this.segmentRows(client, sessionId, fromSeq, fromSeq + count),
    );
    const bodies: Uint8Array[] = [];
    const times: number[] = [];
    for (const segment of segments) {
      for (let i = 0; i < segment.bodies.length; i++) {
        const seq = segment.firstSeq + i;
        if (seq < fromSeq || seq >= fromSeq + count) continue;
        bodies.push(segment.bodies[i]!);
        times.push(segment.times[i]!);
      }
    }
    return { bodies, times };
  }

  private async insertSegments(client: PoolClient, sessionId: string, run: SegmentEvents): Promise<void> {
    const firstSeqs: number[] = [];
    const counts: number[] = [];
    const bytes: number[] = [];
    const hashes: Buffer[] = [];
    const data: Buffer[] = [];
    for (const part of splitRun(run)) {
      const encoded = await encodeSegment(part);
      firstSeqs.push(part.firstSeq);
      counts.push(part.bodies.length);
      bytes.push(encoded.bytes);
      hashes.push(Buffer.from(encoded.sha256, 'hex'));
      data.push(encoded.file);
    }
    await client.query(
      `INSERT INTO ${SEGMENTS} (session_id, first_seq, count, bytes, sha256, data)
       SELECT $1, * FROM unnest($2::bigint[], $3::integer[], $4::bigint[], $5::bytea[], $6::bytea[])`,
      [sessionId, firstSeqs, counts, bytes, hashes, data],
    );
  }

  async append(segment: ArchiveSegment): Promise<void> {
    checkSegment(segment);
    const { sessionId } = segment;
    await this.transaction(`archiving ${JSON.stringify(sessionId)}`, false, async (client) => {
      const archived = await this.lockSession(client, sessionId);
      const skip = await alreadyArchived(archived, segment, (from, count) =>
        this.readRange(client, sessionId, from, count),
      );
      const n = segment.bodies.length;
      if (skip === n) return;
      const added = {
        firstSeq: segment.firstSeq + skip,
        bodies: segment.bodies.slice(skip),
        times: segment.times.slice(skip),
      };
      let run: SegmentEvents = added;
      if (archived !== undefined) {
        // A small last segment is merged with the new run, so that small appends still make full segments.
        const last = await client.query<SegmentRow>(
          `SELECT first_seq, count, bytes, sha256, data FROM ${SEGMENTS} WHERE session_id = $1 ORDER BY first_seq DESC LIMIT 1`,
          [sessionId],
        );
        const row = last.rows[0];
        if (
          row !== undefined &&
          row.count < SEGMENT_MAX_EVENTS / 2 &&
          toInt(row.bytes, 'bytes') < SEGMENT_MAX_BYTES / 2
        ) {
          const [events] = await this.decodeRows(sessionId, [row]);
          run = {
            firstSeq: events!.firstSeq,
            bodies: [...events!.bodies, ...added.bodies],
            times: [...events!.times, ...added.times],
          };
          await client.query(`DELETE FROM ${SEGMENTS} WHERE session_id = $1 AND first_seq = $2`, [
            sessionId,
            row.first_seq,
          ]);
        }
      }
      let addedBytes = 0;
      for (const body of added.bodies) addedBytes += body.byteLength;
      const nextSeq = added.firstSeq + added.bodies.length;
      if (archived === undefined) {
        await client.query(`INSERT INTO ${SESSIONS} (${SESSION_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7)`, [
          sessionId,
          segment.epoch,
          added.firstSeq,
          nextSeq,
          addedBytes,
          added.times[0],
          added.times.at(-1),
        ]);
      } else {
        await client.query(
          `UPDATE ${SESSIONS} SET next_seq = $2, bytes = bytes + $3, last_time = $4, updated_at = now() WHERE session_id = $1`,
          [sessionId, nextSeq, addedBytes, added.times.at(-1)],
        );
      }
      await this.insertSegments(client, sessionId, run);
    });
  }

  async describe(sessionId: string): Promise<ArchivedSession | undefined> {
    validateSessionId(sessionId);
    try {
      // Named (parsed and planned once per pooled connection): a cold catch-up describes on every page.
      const result = await this.pool.query<SessionRow>({
        name: 'session-hub-archive-describe',
        text: `SELECT ${SESSION_COLUMNS} FROM ${SESSIONS} WHERE session_id = $1`,
        values: [sessionId],
      });
      const row = result.rows[0];
      return row === undefined ? undefined : toArchivedSession(row);
    } catch (error) {
      throw pgFailure(`describing ${JSON.stringify(sessionId)}`, error);
    }
  }

  async read(sessionId: string, fromSeq: number, limit: number, maxBytes: number): Promise<StoredPage> {
    checkRead(sessionId, fromSeq, limit, maxBytes);
    try {
      return await readPostgresPage(this.reader, sessionId, fromSeq, limit, maxBytes);
    } catch (error) {
      throw pgFailure(`reading ${JSON.stringify(sessionId)}`, error);
    }
  }

  async list(options: ArchiveListOptions): Promise<ArchiveListPage> {
    checkList(options);
    const prefix = options.prefix ?? '';
    try {
      const result = await this.pool.query<SessionRow>(
        `SELECT ${SESSION_COLUMNS} FROM ${SESSIONS}
          WHERE session_id >= $1 AND starts_with(session_id, $1) AND ($2::text IS NULL OR session_id > $2)
          ORDER BY session_id LIMIT $3`,
        [prefix, options.after ?? null, options.limit + 1],
      );
      const sessions = result.rows.slice(0, options.limit).map(toArchivedSession);
      return result.rows.length > options.limit ? { sessions, next: sessions.at(-1)!.sessionId } : { sessions };
    } catch (error) {
      throw pgFailure('listing archived sessions', error);
    }
  }

  async rewrite(
    sessionId: string,
    epoch: string,
    bodies: ReadonlyMap<number, Uint8Array>,
    nextEpoch = epoch,
  ): Promise<void> {
    checkRewrite(sessionId, epoch, bodies, nextEpoch);
    await this.transaction(`rewriting ${JSON.stringify(sessionId)}`, false, async (client) => {
      const archived = await this.lockSession(client, sessionId);
      if (archived === undefined || archived.epoch !== epoch) {
        throw new ArchiveConflictError(`session ${JSON.stringify(sessionId)} has no archive in epoch ${epoch}`);
      }
      for (const seq of bodies.keys()) {
        if (seq < archived.startSeq || seq >= archived.nextSeq) {
          throw new ArchiveConflictError(`session ${JSON.stringify(sessionId)}: seq ${seq} is not archived`);
        }
      }
      const metas = await client.query<SegmentRow>(
        `SELECT first_seq, count, bytes, sha256 FROM ${SEGMENTS} WHERE session_id = $1 ORDER BY first_seq`,
        [sessionId],
      );
      let delta = 0;
      const seqs = [...bodies.keys()].sort((a, b) => a - b);
      let next = 0;
      for (const meta of metas.rows) {
        const first = toInt(meta.first_seq, 'first_seq');
        // The rewritten seqs are sorted, and so are the segments: each segment takes the seqs below its end.
        let touched = false;
        while (next < seqs.length && seqs[next]! < first + meta.count) {
          touched = true;
          next++;
        }
        if (!touched) continue;
        const full = await client.query<SegmentRow>(
          `SELECT first_seq, count, bytes, sha256, data FROM ${SEGMENTS} WHERE session_id = $1 AND first_seq = $2`,
          [sessionId, first],
        );
        const [events] = await this.decodeRows(sessionId, full.rows);
        const newBodies = events!.bodies.map((body, i) => bodies.get(first + i) ?? body);
        const encoded = await encodeSegment({ firstSeq: first, bodies: newBodies, times: events!.times });
        delta += encoded.bytes - toInt(meta.bytes, 'bytes');
        await client.query(
          `UPDATE ${SEGMENTS} SET data = $3, sha256 = $4, bytes = $5 WHERE session_id = $1 AND first_seq = $2`,
          [sessionId, first, encoded.file, Buffer.from(encoded.sha256, 'hex'), encoded.bytes],
        );
      }
      await client.query(
        `UPDATE ${SESSIONS} SET bytes = bytes + $2, epoch = $3, updated_at = now() WHERE session_id = $1`,
        [sessionId, delta, nextEpoch],
      );
    });
  }

  async delete(sessionId: string): Promise<boolean> {
    validateSessionId(sessionId);
    return this.transaction(`deleting ${JSON.stringify(sessionId)}`, false, async (client) => {
      await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 29))', [sessionId]);
      const result = await client.query(`DELETE FROM ${SESSIONS} WHERE session_id = $1`, [sessionId]);
      return (result.rowCount ?? 0) > 0;
    });
  }

  async close(): Promise<void> {
    await this.ahead.drainAll();
    await this.pool.end();
  }
}
