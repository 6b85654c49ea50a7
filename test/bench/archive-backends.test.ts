// The archive scenario's harness on a tiny session: it runs both backends end to end, reports every row, and
// leaves no database or directory behind. No figure is judged here (benches only).
import { expect } from 'vitest';
import { runArchiveBackends } from '../../bench/archive-backends.ts';
import { test } from '../helpers/fixtures.ts';
import { onDatabase, POSTGRES_ADMIN_URL } from '../helpers/postgres.ts';

test('the archive scenario measures both backends and cleans up', async ({ redis }) => {
  const lines: string[] = [];
  const { rows, raw } = await runArchiveBackends(
    { quick: true, redisUrl: redis.url },
    (line) => lines.push(line),
    5000,
  );
  expect(raw.events).toBe(5000);
  expect(raw.postgresError).toBeUndefined();
  expect(rows.map((row) => row.metric)).toEqual([
    'file archive write, appends of 4,096',
    'file archive read, pages of 1,000',
    'file read / Redis read, median of paired rounds',
    'postgres archive write, appends of 4,096',
    'postgres archive read, pages of 1,000',
    'postgres read / Redis read, median of paired rounds',
  ]);
  for (const row of rows) expect(row.hub).toBeGreaterThan(0);
  expect(raw.fileCompression).toBeGreaterThan(0);
  expect(lines.some((line) => line.startsWith('archive round 1'))).toBe(true);
  const left = await onDatabase(POSTGRES_ADMIN_URL, (client) =>
    client.query(`SELECT datname FROM pg_database WHERE datname LIKE 'sh_bench_archive_%'`),
  );
  expect(left.rows).toEqual([]);
});
