// The EventStore conformance suite, reads bounded by bytes (issue 26 item 1): `readStoredPage(…, maxBytes)` returns
// at most `maxBytes` of bodies (one event at least), says when it cut a page short, and cuts every engine's pages at
// the same events. Every engine passes it, on each backend of conformance-backends.ts, and the Redis engine on its
// ioredis path too (raw reads off: the bounded script).
import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import type { SessionEvent } from '../../shared/index.ts';
import type { EventStore, StoredPage, ValidatedDraft } from '../../server/store/event-store.ts';
import { encodeEventBody } from '../../server/store/codec/event-codec.ts';
import { decodeStoredPage } from '../../server/store/codec/stored-events.ts';
import {
  clusterBackend,
  memoryBackend,
  redisBackend,
  type BackendTest,
  type ConformanceBackend,
} from './conformance-backends.ts';
import { committed } from './conformance-helpers.ts';

const KiB = 1024;

/** Events that grow from tiny (about 40 bytes) to about 250 KB, then one tiny event again. */
function growing(): ValidatedDraft[] {
  const sizes = [
    ...Array.from({ length: 30 }, () => 0),
    ...Array.from({ length: 12 }, (_, index) => Math.round(250 * KiB * ((index + 1) / 12) ** 2)),
    0,
  ];
  return sizes.map((size, index) => ({ type: 'test/grow', data: { index, pad: 'y'.repeat(size) } }));
}

/** The page `readStoredPage(from, limit, maxBytes)` must return of `events` (the one rule: page-bytes.ts). */
function expectedCut(events: readonly SessionEvent[], from: number, limit: number, maxBytes: number) {
  const within = events.slice(from, from + limit);
  let bytes = 0;
  let kept = 0;
  for (const event of within) {
    const size = encodeEventBody(event).length;
    if (kept > 0 && bytes + size > maxBytes) break;
    bytes += size;
    kept++;
  }
  return { events: within.slice(0, kept), truncated: kept < within.length };
}

const bodyBytes = (page: StoredPage): number => page.bodies.reduce((sum, body) => sum + body.length, 0);

function describeBoundedReads(name: string, it: BackendTest): void {
  describe(`EventStore conformance, reads bounded by bytes: ${name}`, () => {
    let store: EventStore;
    let sessionId: string;
    let all: readonly SessionEvent[];

    it.beforeAll(async ({ backend }) => {
      store = await backend.open();
      sessionId = `bounded-${randomUUID()}`;
      const events = growing();
      const first = committed(await store.commit({ sessionId, expectedSeq: 0, events: events.slice(0, 36) }));
      const rest = committed(await store.commit({ sessionId, expectedSeq: 36, events: events.slice(36) }));
      all = [...first, ...rest];
    });

    it('cuts each page at the same events, within maxBytes (one event at least), and says so', async () => {
      for (const maxBytes of [1, 1000, 100 * KiB, 300 * KiB, 1024 * KiB]) {
        for (const limit of [1, 7, 1000]) {
          let from = 0;
          const read: SessionEvent[] = [];
          while (from < all.length) {
            const page = await store.readStoredPage(sessionId, from, limit, maxBytes);
            const want = expectedCut(all, from, limit, maxBytes);
            expect(page.epoch).toBeDefined();
            expect(page.firstSeq).toBe(from);
            expect(decodeStoredPage(sessionId, page).events).toEqual(want.events);
            expect(page.truncated === true).toBe(want.truncated);
            expect(page.bodies.length).toBeGreaterThanOrEqual(1);
            if (page.bodies.length > 1) expect(bodyBytes(page)).toBeLessThanOrEqual(maxBytes);
            read.push(...decodeStoredPage(sessionId, page).events);
            from += page.bodies.length;
          }
          expect(read).toEqual(all);
        }
      }
    }, 60_000);

    it('a page from the middle of the large events holds them up to the budget, never past it; one that fits is whole', async () => {
      const from = 36;
      const page = await store.readStoredPage(sessionId, from, 1000, 600 * KiB);
      expect(page.truncated).toBe(true);
      expect(page.bodies.length).toBeGreaterThan(1);
      expect(bodyBytes(page)).toBeLessThanOrEqual(600 * KiB);
      const next = encodeEventBody(all[from + page.bodies.length]!).length;
      expect(bodyBytes(page) + next).toBeGreaterThan(600 * KiB);
      const small = await store.readStoredPage(sessionId, 0, 30, 1024 * KiB);
      expect(small.bodies).toHaveLength(30);
      expect(small.truncated ?? false).toBe(false);
      const end = await store.readStoredPage(sessionId, all.length - 1, 10, 1);
      expect(end.bodies).toHaveLength(1);
      expect(end.truncated ?? false).toBe(false);
      const whole = await store.readStoredPage(sessionId, 0, 1000);
      expect(whole.bodies).toHaveLength(all.length);
      expect(whole.truncated ?? false).toBe(false);
    });

    it('reads nothing of a session without an epoch, and refuses a bad maxBytes', async () => {
      const none = `bounded-none-${randomUUID()}`;
      expect(await store.readStoredPage(none, 0, 10, 1)).toEqual({
        epoch: undefined,
        firstSeq: 0,
        bodies: [],
        times: [],
      });
      for (const maxBytes of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
        await expect(store.readStoredPage(sessionId, 0, 10, maxBytes)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
      }
    });
  });
}

/** The Redis engine reading its pages through ioredis only (the path of a Cluster or TLS: the bounded script). */
const redisScriptBackend = redisBackend.extend(
  'backend',
  { scope: 'file' },
  ({ openRedisStore }): ConformanceBackend => ({
    open: () => openRedisStore({ keyPrefix: `conf-${randomUUID().slice(0, 8)}:`, rawReads: false }),
  }),
);

describeBoundedReads('memory', memoryBackend);
describeBoundedReads('redis', redisBackend);
describeBoundedReads('redis, ioredis reads', redisScriptBackend);
describeBoundedReads('redis cluster', clusterBackend);
