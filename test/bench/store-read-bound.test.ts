import { expect } from 'vitest';
import { measureReadBound } from '../../bench/store-read-bound.ts';
import { test } from '../helpers/fixtures.ts';

// A tiny run of the store-read-bound measurement: both sessions through both paths, every pass reads the whole
// session, and the bounded passes never return a page past the budget (the unbounded ones do, on the growing
// session). The timings are never asserted.
test('store read bound: bounded and unbounded passes over both sessions and both paths', async ({ redis }) => {
  const rows = await measureReadBound({ redisUrl: redis.url, sizes: { small: 40, tiny: 40, grown: 20 }, passes: 1 });
  expect(rows.map((row) => [row.path, row.events])).toEqual([
    ['raw', 40],
    ['ioredis', 40],
    ['raw', 60],
    ['ioredis', 60],
  ]);
  for (const row of rows) {
    expect(Number.isFinite(row.bounded.ms) && Number.isFinite(row.unbounded.ms)).toBe(true);
    expect(row.bounded.largestPage).toBeLessThanOrEqual(4 * 1024 * 1024);
  }
  const growing = rows.filter((row) => row.events === 60);
  for (const row of growing) expect(row.unbounded.largestPage).toBeGreaterThan(4 * 1024 * 1024);
  expect(growing.find((row) => row.path === 'raw')?.overBudget).toBeGreaterThan(0);
}, 60_000);
