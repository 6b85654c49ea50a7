// The idempotency window of the Archiver (ArchivePolicy.idempotencyWindowMs, `serve --idempotency-window`) and of the
// admin "archive now" (HubConfig.idempotencyWindowMs): a run drops the keys of the appends it trimmed that were
// committed longer ago than the window, and a later tick drops the ones that come of age after it; without a window
// every key stays. Memory and Redis engines, file archive.
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { newArchiveCounts } from '../../server/archive-metrics.ts';
import { Archiver, type ArchivePolicy } from '../../server/archive/archiver.ts';
import { archiveNowOf } from '../../server/archive/archive-now.ts';
import { resolveConfig } from '../../server/config.ts';
import type { EventStore } from '../../server/store/event-store.ts';
import { MemoryStore } from '../../server/store/memory/memory-store.ts';
import { test } from '../helpers/fixtures.ts';
import type { ArchiveHarness } from './archive-harness.ts';
import { openFileHarness } from './file-harness.ts';
import { turnDrafts } from './tier-helpers.ts';

const DAY = 86_400_000;
const NOW = Date.now();
const OLD = NOW - 3 * DAY;
const RECENT = NOW - 3_600_000;

const it = test.extend('stores', async ({ openRedisStore }, { onCleanup }) => ({
  open: async (kind: 'memory' | 'redis'): Promise<EventStore> => {
    if (kind === 'redis') return openRedisStore();
    const store = new MemoryStore();
    onCleanup(() => store.close());
    return store;
  },
}));

describe.each(['memory', 'redis'] as const)('Archiver, idempotency window: %s', (kind) => {
  let harness: ArchiveHarness;
  beforeAll(async () => {
    harness = await openFileHarness();
  });
  afterAll(async () => {
    await harness.close();
  });

  function archiverOn(store: EventStore, policy: ArchivePolicy, now: () => number): Archiver {
    const logger = pino({ level: 'silent' });
    const counts = newArchiveCounts();
    return new Archiver({ store, archive: harness.backend, policy, logger, counts, nodeName: 'n', now });
  }

  /** One turn committed as a keyed append at `time`. */
  async function append(store: EventStore, sessionId: string, key: string, time: number): Promise<void> {
    const { headSeq } = await store.head(sessionId);
    const events = turnDrafts(1, headSeq + 2, key).flat(); // a whole turn: the run may cut after it
    const batches = [{ events, idempotencyKey: key }];
    const result = await store.commitGroup({ sessionId, expectedSeq: headSeq + 1, batches, time });
    if (result.status !== 'committed') throw new Error(`commit: ${result.status}`);
  }

  async function known(store: EventStore, sessionId: string, keys: readonly string[]): Promise<string[]> {
    const batches = keys.map((idempotencyKey) => ({ events: turnDrafts(1).flat(), idempotencyKey }));
    const lookup = await store.lookupKeys({ sessionId, batches });
    return keys.filter((_, index) => lookup.keys[index] !== undefined);
  }

  it('a run drops the old keys it trimmed; a later tick the ones that came of age', async ({ stores }) => {
    const store = await stores.open(kind);
    const sessionId = `window-${randomUUID()}`;
    for (const key of ['a1', 'a2']) await append(store, sessionId, key, OLD);
    await append(store, sessionId, 'r1', RECENT);
    let clock = NOW;
    const archiver = archiverOn(store, { archiveAfterMs: 60_000, idempotencyWindowMs: DAY }, () => clock);
    const first = await archiver.tick();
    expect(first.runs).toContainEqual({ sessionId, status: 'archived' });
    expect((await store.head(sessionId)).firstSeq).toBeGreaterThan(0);
    expect(await known(store, sessionId, ['a1', 'a2', 'r1'])).toEqual(['r1']);

    await archiver.tick(); // r1 is not a day old yet
    expect(await known(store, sessionId, ['r1'])).toEqual(['r1']);
    clock = RECENT + DAY + 1;
    const last = await archiver.tick(); // nothing to archive: the window's walk only
    expect(last.runs.filter((run) => run.sessionId === sessionId)).toEqual([]);
    expect(await known(store, sessionId, ['r1'])).toEqual([]);
  });

  it('without a window every key stays', async ({ stores }) => {
    const store = await stores.open(kind);
    const sessionId = `forever-${randomUUID()}`;
    for (const key of ['a1', 'a2']) await append(store, sessionId, key, OLD);
    const archiver = archiverOn(store, { archiveAfterMs: 60_000 }, () => NOW + 10 * DAY);
    expect((await archiver.tick()).runs).toContainEqual({ sessionId, status: 'archived' });
    await archiver.tick();
    expect(await known(store, sessionId, ['a1', 'a2'])).toEqual(['a1', 'a2']);
  });

  it('the admin "archive now" of a hub with idempotencyWindowMs drops the old keys it trimmed', async ({ stores }) => {
    const store = await stores.open(kind);
    const sessionId = `now-${randomUUID()}`;
    for (const key of ['a1', 'a2']) await append(store, sessionId, key, OLD);
    await append(store, sessionId, 'r1', RECENT);
    const config = resolveConfig({ store, archive: harness.backend, idempotencyWindowMs: DAY });
    const run = await archiveNowOf(config.store, harness.backend, 'n', config.idempotencyWindowMs)(sessionId);
    expect(run).toMatchObject({ status: 'archived', keys: { removed: 2, youngestKept: RECENT } });
    expect(await known(store, sessionId, ['a1', 'a2', 'r1'])).toEqual(['r1']);
    expect(() => resolveConfig({ store, idempotencyWindowMs: 0 })).toThrow(RangeError);
  });
});
