import { describe, expect } from 'vitest';
import type { SessionEvent } from '../../shared/index.ts';
import type { EventStore, StoredPage } from '../../server/store/event-store.ts';
import { encodeEventBody } from '../../server/store/codec/event-codec.ts';
import { defaultLimits } from '../../server/limits/limits.ts';
import { storeEngines } from '../helpers/engines.ts';
import { test } from '../helpers/fixtures.ts';
import { startHub } from '../helpers/hub.ts';
import { range, RawHubClient } from '../helpers/raw-hub-client.ts';
import { RedisServer } from '../helpers/redis-server.ts';
import { RedisStore } from '../../server/store/redis/redis-store.ts';

const KiB = 1024;
const eventBytes = 200 * KiB;
const stored = 120; // 24 MB: far more than one read may hold
const large = (n: number) => ({ type: 'test/large', data: { n, pad: 'x'.repeat(eventBytes) } });
const sized = (n: number, bytes: number) => ({ type: 'test/large', data: { n, pad: 'z'.repeat(bytes) } });
const small = (n: number) => ({ type: 'test/small', data: { n } });
/** What one store read may hold with the default limits: four frames' worth, and one event more at most. */
const readBound = 4 * defaultLimits.maxFrameBytes + defaultLimits.maxEventBytes;

/** Every store read a hub makes of `store`, with the bytes (as stored) it returned, and the events of each. */
function recordReads(store: EventStore): {
  readonly store: EventStore;
  readonly reads: number[];
  readonly counts: number[];
} {
  const reads: number[] = [];
  const counts: number[] = [];
  const bodyBytes = (events: readonly SessionEvent[]) =>
    events.reduce((sum, event) => sum + encodeEventBody(event).length, 0);
  const recorded: Partial<EventStore> = {
    read: async (sessionId, fromSeq, limit) => {
      const events = await store.read(sessionId, fromSeq, limit);
      reads.push(bodyBytes(events));
      counts.push(events.length);
      return events;
    },
    readStoredPage: async (sessionId, fromSeq, limit, maxBytes): Promise<StoredPage> => {
      const page = await store.readStoredPage(sessionId, fromSeq, limit, maxBytes);
      reads.push(page.bodies.reduce((sum, body) => sum + body.length, 0));
      counts.push(page.bodies.length);
      return page;
    },
  };
  // The real store, its reads counted (its other methods run on the store itself: private fields need it).
  const proxy = new Proxy(store, {
    get(target, property) {
      if (typeof property === 'string' && property in recorded) return recorded[property as keyof EventStore];
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { store: proxy, reads, counts };
}

/** The engines, and the Redis engine once more with its raw reader off (pages through ioredis: the bounded script). */
const engineChoices = [
  ...storeEngines('bounded-reads:'),
  {
    name: 'redis, ioredis reads',
    open: async () => {
      const redis = await RedisServer.start();
      const store = await RedisStore.open({ url: redis.url, keyPrefix: 'bounded-reads:', rawReads: false });
      return { store, stop: () => redis.stop() };
    },
  },
];
const engines = engineChoices.map((engine) => ({
  name: engine.name,
  it: test.extend('engine', { scope: 'file' }, engine),
}));

/** What one store read may hold with the default limits, strictly: four frames' worth (one event at least). */
const readBudget = 4 * defaultLimits.maxFrameBytes;

// Issue 26, item 1: the append cache's first load and a subscription's first catch-up read took 1,000 events per
// store read whatever their size (one 300-byte append to a session of 1,000 × 250 KB events took a fresh node
// from 80 to 642 MiB). Every store read is now bounded by bytes (at least one event).
describe.each(engines)('store reads of a hub ($name): bounded by bytes', ({ it }) => {
  it('the first append to a cold session of large events and a catch-up from seq 0 read a few MB at a time', async ({
    engineStore,
  }) => {
    const sessionId = 'bounded/large';
    for (let first = 0; first < stored; first += 10) {
      const events = range(first, first + 9).map(large);
      expect(await engineStore.commit({ sessionId, expectedSeq: first, events })).toMatchObject({
        status: 'committed',
      });
    }
    const { store, reads } = recordReads(engineStore);
    const hub = await startHub({ store });
    const client = await RawHubClient.connect(hub.wsUrl);
    try {
      // A fresh node: the append loads the session into the append cache.
      const ack = await client.request({ type: 'append', sessionId, events: [{ type: 'test/small', data: {} }] });
      expect(ack).toMatchObject({ type: 'ack', firstSeq: stored });
      const cacheReads = reads.length;
      expect(cacheReads).toBeGreaterThan(1);
      expect(Math.max(...reads)).toBeLessThanOrEqual(readBound);

      await client.request({ type: 'subscribe', sessionId, fromSeq: 0 });
      await client.waitFor((message) => message.type === 'live', { timeoutMs: 60_000 });
      expect(client.seqs(sessionId)).toEqual(range(0, stored));
      expect(reads.length).toBeGreaterThan(cacheReads + 1);
      expect(Math.max(...reads)).toBeLessThanOrEqual(readBound);
      // Bounded, not starved: the reads still carry several events each.
      expect(Math.max(...reads)).toBeGreaterThan(4 * eventBytes);
    } finally {
      await client.close();
      await hub.close();
    }
  }, 120_000);

  // The case the count alone could not bound: after small events a reader asks for many (the largest it has seen is
  // small), and the events then grow to ~250 KB. The store cuts each read at the budget.
  it('a session whose events grow from tiny to ~250 KB: the first load and a catch-up read at most the budget each', async ({
    engine,
    engineStore,
  }) => {
    const sessionId = 'bounded/growing';
    const tiny = 40;
    const grown = 40;
    const grownBytes = 250_000;
    expect(
      await engineStore.commit({ sessionId, expectedSeq: 0, events: range(0, tiny - 1).map(small) }),
    ).toMatchObject({ status: 'committed' });
    for (let first = tiny; first < tiny + grown; first += 4) {
      const events = range(first, first + 3).map((n) => sized(n, grownBytes));
      expect(await engineStore.commit({ sessionId, expectedSeq: first, events })).toMatchObject({
        status: 'committed',
      });
    }
    const total = tiny + grown;
    const { store, reads, counts } = recordReads(engineStore);
    const hub = await startHub({ store });
    const client = await RawHubClient.connect(hub.wsUrl);
    const withinBudget = (): void => {
      reads.forEach((bytes, index) => {
        if (counts[index]! > 1) expect(bytes).toBeLessThanOrEqual(readBudget);
      });
      expect(Math.max(...reads)).toBeLessThanOrEqual(readBudget + defaultLimits.maxEventBytes);
    };
    try {
      const ack = await client.request({ type: 'append', sessionId, events: [{ type: 'test/small', data: {} }] });
      expect(ack).toMatchObject({ type: 'ack', firstSeq: total });
      withinBudget();
      const cacheReads = reads.length;
      await client.request({ type: 'subscribe', sessionId, fromSeq: 0 });
      await client.waitFor((message) => message.type === 'live', { timeoutMs: 60_000 });
      expect(client.seqs(sessionId)).toEqual(range(0, total));
      expect(reads.length).toBeGreaterThan(cacheReads + 1);
      withinBudget();
      // Bounded, not starved: a read still carries several of the large events.
      expect(Math.max(...reads)).toBeGreaterThan(4 * grownBytes);
      // On Redis's raw path, a reply past its budget was dropped and read again, cut by Redis (the bounded script).
      const overBudget = engineStore.counters?.rawReadsOverBudget ?? 0;
      if (engine.name === 'redis') expect(overBudget).toBeGreaterThan(0);
      else expect(overBudget).toBe(0);
    } finally {
      await client.close();
      await hub.close();
    }
  }, 120_000);
});
