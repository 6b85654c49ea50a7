// The Redis engine's trim (docs/storage.md#trimming): where the base lives, both page read paths (raw RESP and
// MULTI), and reads racing trims. The engine-neutral semantics are in conformance-trim.test.ts.
import { describe, expect } from 'vitest';
import type { StoredPage } from '../../server/store/event-store.ts';
import type { RedisStore } from '../../server/store/redis/redis-store.ts';
import { StoreTrimmedError } from '../../server/store/trimmed-error.ts';
import { test } from '../helpers/fixtures.ts';
import { committed, drafts } from './conformance-helpers.ts';

const it = test.extend('keyPrefix', { scope: 'file' }, 'trim:');

/** The page, or the first seq of a GONE; anything else is thrown. */
async function pageOrGone(read: Promise<StoredPage>): Promise<StoredPage | { gone: number }> {
  try {
    return await read;
  } catch (error) {
    if (error instanceof StoreTrimmedError) return { gone: error.firstSeq };
    throw error;
  }
}

describe('RedisStore.trim', () => {
  it('keeps the base in the idempotency hash: no key of its own, none missing for a Cluster slot move', async ({
    redisStore,
    admin,
  }) => {
    const sessionId = 'where';
    const { epoch } = await redisStore.commit({ sessionId, expectedSeq: 0, events: drafts(6), idempotencyKey: 'k' });
    const keys = redisStore.keys(sessionId);
    const before = (await admin.keys('trim:{where}*')).sort();
    expect(await admin.hget(keys.idempotency, '')).toBe('');
    await redisStore.trim({ sessionId, epoch, beforeSeq: 4 });
    expect(await admin.hget(keys.idempotency, '')).toBe('4');
    expect(await admin.xlen(keys.log)).toBe(2);
    expect((await admin.keys('trim:{where}*')).sort()).toEqual(before);
    expect(before).toEqual([keys.epoch, keys.idempotency, keys.log].sort());
  });

  it('answers GONE on the raw RESP reader and on MULTI alike, the raw one without falling back', async ({
    openRedisStore,
  }) => {
    const raw = await openRedisStore();
    const multi = await openRedisStore({ rawReads: false });
    const sessionId = 'paths';
    const result = await raw.commit({ sessionId, expectedSeq: 0, events: drafts(8) });
    await raw.readStoredPage(sessionId, 0, 1); // opens the raw socket
    await multi.trim({ sessionId, epoch: result.epoch, beforeSeq: 5 });
    for (const store of [raw, multi]) {
      for (const fromSeq of [0, 4]) {
        expect(await pageOrGone(store.readStoredPage(sessionId, fromSeq, 3))).toEqual({ gone: 5 });
      }
      const page = await store.readStoredPage(sessionId, 5, 10);
      expect(page.times).toHaveLength(3);
      expect(page.firstSeq).toBe(5);
    }
    expect(raw.counters.rawReadFallbacks).toBe(0);
    expect(committed(result)).toHaveLength(8);
  });

  it('reads racing trims get a contiguous page from their seq or GONE above it, never corrupt data', async ({
    openRedisStore,
  }) => {
    const stores: RedisStore[] = [await openRedisStore(), await openRedisStore({ rawReads: false })];
    const sessionId = 'race';
    let epoch = '';
    for (let seq = 0; seq < 2000; seq += 500) {
      epoch = (await stores[0]!.commit({ sessionId, expectedSeq: seq, events: drafts(500) })).epoch;
    }
    let base = 0;
    const trims = (async () => {
      for (let beforeSeq = 40; beforeSeq <= 2000; beforeSeq += 40) {
        await stores[0]!.trim({ sessionId, epoch, beforeSeq });
        base = beforeSeq;
      }
    })();
    let pages = 0;
    let gone = 0;
    const reads = stores.map(async (store) => {
      while (base < 2000) {
        const fromSeq = base + 20; // above the base when asked, often below it when read
        const page = await pageOrGone(store.readStoredPage(sessionId, fromSeq, 60));
        if ('gone' in page) {
          expect(page.gone).toBeGreaterThan(fromSeq);
          gone++;
        } else {
          expect(page.firstSeq).toBe(fromSeq);
          expect(page.times.length).toBe(Math.min(60, Math.max(0, 2000 - fromSeq)));
          pages++;
        }
      }
    });
    await Promise.all([trims, ...reads]);
    expect(pages + gone).toBeGreaterThan(0);
    expect(await stores[1]!.head(sessionId)).toEqual({ epoch, headSeq: 1999, firstSeq: 2000 });
  });
});
