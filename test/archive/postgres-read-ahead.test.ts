// The PostgreSQL archive reads ahead (server/archive/postgres/pg-read.ts): once a reader enters a segment, the next
// one is fetched before the reader asks for it, each segment is fetched once, and the pages are the events as
// written. On a database of its own, created and dropped here.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { PostgresArchive } from '../../server/archive/postgres/pg-archive.ts';
import { SEGMENT_MAX_EVENTS } from '../../server/archive/segment-codec.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.ts';
import { hexes, run } from './archive-helpers.ts';

const EPOCH = '5c2f0b7e-8d4a-4e1f-a3b6-0c9d7e2f1a58';
let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase('sh_archive_ahead');
});
afterAll(async () => {
  await database.drop();
});

/** The segment fetches a backend's pool is asked for, as `fetch <first seqs>`, into `log`. */
function logFetches(backend: PostgresArchive, log: string[]): void {
  type Query = (config: { readonly name?: string; readonly values?: readonly unknown[] }) => Promise<unknown>;
  const pool = (backend as unknown as { pool: { query: Query } }).pool;
  const query = pool.query.bind(pool);
  pool.query = (config) => {
    if (typeof config === 'object' && config.name === 'session-hub-archive-segment-data') {
      log.push(`fetch ${String(config.values?.[1])}`);
    }
    return query(config);
  };
}

test('a reader entering a segment has the next one fetched before it reads there, each segment once', async () => {
  const writer = new PostgresArchive({ url: database.url });
  await writer.open();
  // Full segments (SEGMENT_MAX_EVENTS): a smaller last segment would be merged with the next append.
  const segments = [0, 1, 2].map((index) => run('ahead', EPOCH, index * SEGMENT_MAX_EVENTS, SEGMENT_MAX_EVENTS));
  const total = 3 * SEGMENT_MAX_EVENTS;
  const pageEvents = SEGMENT_MAX_EVENTS / 4;
  try {
    for (const segment of segments) await writer.append(segment);
  } finally {
    await writer.close();
  }
  const reader = new PostgresArchive({ url: database.url });
  await reader.open();
  try {
    const log: string[] = [];
    logFetches(reader, log);
    const bodies: Uint8Array[] = [];
    for (let seq = 0; seq < total; seq += pageEvents) {
      log.push(`page ${seq}`);
      const page = await reader.read('ahead', seq, pageEvents, 16 << 20);
      expect(page.firstSeq).toBe(seq);
      bodies.push(...page.bodies);
    }
    expect(hexes(bodies)).toEqual(hexes(segments.flatMap((segment) => segment.bodies)));
    const [second, third] = [SEGMENT_MAX_EVENTS, 2 * SEGMENT_MAX_EVENTS];
    expect(log.filter((line) => line.startsWith('fetch'))).toEqual(['fetch 0', `fetch ${second}`, `fetch ${third}`]);
    expect(log.indexOf(`fetch ${second}`)).toBeLessThan(log.indexOf(`page ${second}`));
    expect(log.indexOf(`fetch ${third}`)).toBeLessThan(log.indexOf(`page ${third}`));
  } finally {
    await reader.close();
  }
});
