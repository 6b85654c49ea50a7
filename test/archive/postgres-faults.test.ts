// The PostgreSQL archive under faults, each test on a database of its own (created and dropped here): connections
// terminated during and between writes, a database whose transactions are read-only, a schema newer than the code,
// nodes migrating together, and a server that is not there.
import { afterEach, describe, expect, test, vi } from 'vitest';
import { ArchiveUnavailableError } from '../../server/archive/archive-backend.ts';
import { PostgresArchive } from '../../server/archive/postgres/pg-archive.ts';
import { ARCHIVE_SCHEMA_VERSION, ArchiveSchemaError } from '../../server/archive/postgres/pg-schema.ts';
import { freePort } from '../helpers/free-port.ts';
import { createTestDatabase, onDatabase, type TestDatabase } from '../helpers/postgres.ts';
import { hexes, readAll, run } from './archive-helpers.ts';

const EPOCH = '0b6a7f0e-3c1d-4a8e-9f65-2d7c1e5b9a40';
const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function database(): Promise<TestDatabase> {
  const made = await createTestDatabase('sh_archive_fault');
  cleanups.push(() => made.drop());
  return made;
}

async function archive(url: string, errors: Error[] = []): Promise<PostgresArchive> {
  const backend = new PostgresArchive({ url, onError: (error) => errors.push(error) });
  cleanups.push(() => backend.close().catch(() => undefined));
  await backend.open();
  return backend;
}

/** Terminates the archive's connections to `db` (as an operator or a failover would); how many it ended. */
async function terminateArchiveConnections(db: TestDatabase, state?: string): Promise<number> {
  const result = await db.admin(
    `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
      WHERE datname = $1 AND application_name = 'session-hub:archive' AND ($2::text IS NULL OR state = $2)`,
    [db.name, state ?? null],
  );
  return result.rowCount ?? 0;
}

describe('postgres archive: faults', () => {
  test('a connection terminated in the middle of an append: ArchiveUnavailableError, nothing written, the retry completes', async () => {
    const db = await database();
    const errors: Error[] = [];
    const backend = await archive(db.url, errors);
    const id = 'acme/terminated';
    const first = run(id, EPOCH, 0, 100);
    await backend.append(first);
    const second = run(id, EPOCH, 100, 5000);
    // Hold the session's write lock from another connection, so the append waits inside its transaction.
    await onDatabase(db.url, async (holder) => {
      await holder.query('BEGIN');
      await holder.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 29))', [id]);
      const appending = backend.append(second);
      const settled = appending.then(
        () => 'resolved',
        (error: unknown) => error,
      );
      await vi.waitFor(
        async () => {
          const waiting = await db.admin(
            `SELECT count(*)::int AS n FROM pg_stat_activity
              WHERE datname = $1 AND application_name = 'session-hub:archive' AND wait_event_type = 'Lock'`,
            [db.name],
          );
          expect(waiting.rows).toEqual([{ n: 1 }]);
        },
        { timeout: 10_000, interval: 20 },
      );
      expect(await terminateArchiveConnections(db, 'active')).toBe(1);
      const outcome = await settled;
      expect(outcome).toBeInstanceOf(ArchiveUnavailableError);
      expect(outcome).toMatchObject({ code: 'STORE_UNAVAILABLE' });
      await holder.query('COMMIT');
    });
    expect(await backend.describe(id)).toMatchObject({ nextSeq: 100 });
    await backend.append(second);
    expect(hexes((await readAll(backend, id)).bodies)).toEqual(hexes([...first.bodies, ...second.bodies]));
  });

  test('idle connections terminated between writes: reported, never thrown; every event archived exactly once', async () => {
    const db = await database();
    const errors: Error[] = [];
    const backend = await archive(db.url, errors);
    const id = 'acme/idle-terminated';
    const expected: Uint8Array[] = [];
    let failures = 0;
    let terminated = 0;
    for (let seq = 0; seq < 6000; seq += 300) {
      const part = run(id, EPOCH, seq, 300);
      expected.push(...part.bodies);
      if (seq % 900 === 0) terminated += await terminateArchiveConnections(db, 'idle');
      for (let attempt = 0; ; attempt++) {
        try {
          await backend.append(part);
          break;
        } catch (error) {
          expect(error).toBeInstanceOf(ArchiveUnavailableError);
          failures++;
          if (attempt > 5) throw error;
        }
      }
    }
    expect(terminated).toBeGreaterThan(0);
    await vi.waitFor(() => expect(errors.length + failures).toBeGreaterThan(0), { timeout: 10_000, interval: 10 });
    for (const error of errors) expect(error).toBeInstanceOf(ArchiveUnavailableError);
    expect(await backend.describe(id)).toMatchObject({ startSeq: 0, nextSeq: 6000 });
    expect(hexes((await readAll(backend, id, 999)).bodies)).toEqual(hexes(expected));
  });

  test('a read-only database: opens, reads, and refuses writes with ArchiveUnavailableError, changing nothing', async () => {
    const db = await database();
    const writer = await archive(db.url);
    const id = 'acme/read-only';
    const first = run(id, EPOCH, 0, 50);
    await writer.append(first);
    await writer.close();
    await db.admin(`ALTER DATABASE ${db.name} SET default_transaction_read_only = on`);
    const reader = await archive(db.url);
    await expect(reader.append(run(id, EPOCH, 50, 10))).rejects.toBeInstanceOf(ArchiveUnavailableError);
    await expect(reader.append(run('acme/other', EPOCH, 0, 10))).rejects.toThrow(/25006/);
    await expect(reader.rewrite(id, EPOCH, new Map([[1, first.bodies[0]!]]))).rejects.toBeInstanceOf(
      ArchiveUnavailableError,
    );
    await expect(reader.delete(id)).rejects.toBeInstanceOf(ArchiveUnavailableError);
    expect(await reader.describe(id)).toMatchObject({ nextSeq: 50 });
    expect(await reader.describe('acme/other')).toBeUndefined();
    expect(hexes((await readAll(reader, id)).bodies)).toEqual(hexes(first.bodies));
  });

  test('a schema newer than the code is refused with a clear error and left as it is', async () => {
    const db = await database();
    await archive(db.url);
    await onDatabase(db.url, (client) =>
      client.query(`UPDATE session_hub_schema SET version = $1 WHERE component = 'archive'`, [
        ARCHIVE_SCHEMA_VERSION + 1,
      ]),
    );
    const newer = new PostgresArchive({ url: db.url });
    cleanups.push(() => newer.close());
    const opening = newer.open();
    await expect(opening).rejects.toBeInstanceOf(ArchiveSchemaError);
    await expect(newer.open()).rejects.toThrow(/newer than this session-hub knows/);
    const version = await onDatabase(db.url, (client) =>
      client.query<{ version: number }>(`SELECT version FROM session_hub_schema WHERE component = 'archive'`),
    );
    expect(version.rows).toEqual([{ version: ARCHIVE_SCHEMA_VERSION + 1 }]);
  });

  test('nodes opening together on a new database migrate it once', async () => {
    const db = await database();
    const backends = [0, 1, 2].map(() => new PostgresArchive({ url: db.url }));
    for (const backend of backends) cleanups.push(() => backend.close());
    await Promise.all(backends.map((backend) => backend.open()));
    const rows = await onDatabase(db.url, (client) =>
      client.query('SELECT component, version FROM session_hub_schema'),
    );
    expect(rows.rows).toEqual([{ component: 'archive', version: ARCHIVE_SCHEMA_VERSION }]);
    await backends[0]!.append(run('acme/once', EPOCH, 0, 3));
    expect(await backends[2]!.describe('acme/once')).toMatchObject({ nextSeq: 3 });
  });

  test('no server: open and every call reject with ArchiveUnavailableError', async () => {
    const url = `postgres://postgres@127.0.0.1:${await freePort()}/nothing`;
    const backend = new PostgresArchive({ url, connectTimeoutMs: 1000 });
    cleanups.push(() => backend.close());
    await expect(backend.open()).rejects.toBeInstanceOf(ArchiveUnavailableError);
    await expect(backend.append(run('acme/x', EPOCH, 0, 1))).rejects.toBeInstanceOf(ArchiveUnavailableError);
    await expect(backend.read('acme/x', 0, 10, 1000)).rejects.toBeInstanceOf(ArchiveUnavailableError);
    await expect(backend.list({ limit: 10 })).rejects.toBeInstanceOf(ArchiveUnavailableError);
  });
});
