// The retention sweeper on a real Redis: rules by prefix (longest wins), time driven by the sweeper's clock (the
// sessions' last activity set by import-mode commits), one sweep across two nodes, failures counted.
import { randomUUID } from 'node:crypto';
import { Registry } from 'prom-client';
import { describe, expect } from 'vitest';
import { RetentionMetrics } from '../../server/archive/retention-metrics.ts';
import type { RetentionConfig } from '../../server/archive/retention-rules.ts';
import { RetentionSweeper } from '../../server/archive/retention-sweeper.ts';
import { createLogger } from '../../server/logger.ts';
import type { EventStore } from '../../server/store/event-store.ts';
import { MemoryStore } from '../../server/store/memory/memory-store.ts';
import { test } from '../helpers/fixtures.ts';

const DAY = 24 * 3600 * 1000;
/** The sessions' last activity: a fixed day, whatever the real clock says. */
const T0 = Date.UTC(2026, 0, 1);

interface Node {
  readonly sweeper: RetentionSweeper;
  readonly registry: Registry;
}

function sweeperOn(store: EventStore, config: RetentionConfig, onExpired?: (id: string) => Promise<void>): Node {
  const registry = new Registry();
  const metrics = new RetentionMetrics(registry, 'session_hub_');
  const sweeper = new RetentionSweeper({
    store,
    config: onExpired === undefined ? config : { ...config, onExpired },
    nodeName: `node-${randomUUID().slice(0, 6)}`,
    logger: createLogger('silent'),
    metrics,
  });
  return { sweeper, registry };
}

async function metricValue(registry: Registry, name: string, labels: Record<string, string> = {}): Promise<number> {
  const metric = registry.getSingleMetric(`session_hub_${name}`);
  const values = (await metric!.get()).values;
  const found = values.find((value) => Object.entries(labels).every(([key, text]) => value.labels[key] === text));
  return found?.value ?? 0;
}

/** Commit one event to `sessionId` at `time` (import mode: the store keeps the given commit time). */
async function writeAt(store: EventStore, sessionId: string, time: number): Promise<void> {
  const head = await store.head(sessionId);
  const result = await store.commitGroup({
    sessionId,
    expectedSeq: head.headSeq + 1,
    batches: [{ events: [{ type: 'test/event', data: { at: time } }] }],
    time,
  });
  expect(result.status).toBe('committed');
}

describe('retention sweeper on Redis', () => {
  test('expires each session past its rule (longest prefix wins), keeps the others, counts it', async ({
    openRedisStore,
  }) => {
    const store = await openRedisStore({ keyPrefix: `sweep-${randomUUID().slice(0, 8)}:` });
    const ids = ['beta/one', 'acme/one', 'acme/vip/one', 'vip/one', 'beta/fresh'];
    for (const id of ids.slice(0, 4)) await writeAt(store, id, T0);
    await writeAt(store, 'beta/fresh', T0 + 20 * DAY);
    let now = T0 + 31 * DAY;
    const config: RetentionConfig = {
      retainForMs: 30 * DAY,
      rules: [
        { prefix: 'acme/', retainMs: 90 * DAY },
        { prefix: 'acme/vip/', retainMs: 365 * DAY },
        { prefix: 'vip/', retainMs: undefined },
      ],
      clock: () => now,
      sweepBatch: 2,
    };
    const cleaned: string[] = [];
    const { sweeper, registry } = sweeperOn(store, config, async (id) => {
      cleaned.push(id);
    });
    try {
      expect(await sweeper.sweepOnce()).toEqual({
        status: 'done',
        examined: expect.any(Number),
        expired: 1,
        errors: 0,
        complete: true,
      });
      expect(await store.retention.status('beta/one')).toEqual({ status: 'expired', expiredAt: now });
      for (const kept of ['acme/one', 'acme/vip/one', 'vip/one', 'beta/fresh']) {
        expect((await store.head(kept)).headSeq).toBe(0);
      }
      now = T0 + 91 * DAY;
      expect(await sweeper.sweepOnce()).toMatchObject({ status: 'done', expired: 2 }); // acme/one, beta/fresh
      now = T0 + 10 * 365 * DAY;
      expect(await sweeper.sweepOnce()).toMatchObject({ status: 'done', expired: 1 }); // acme/vip/one
      expect((await store.head('vip/one')).headSeq).toBe(0);
      expect((await store.retention.status('vip/one')).status).toBe('not-expired');
      expect(cleaned.sort()).toEqual(['acme/one', 'acme/vip/one', 'beta/fresh', 'beta/one']);
      expect(await metricValue(registry, 'retention_expired_sessions_total')).toBe(4);
      expect(await metricValue(registry, 'retention_sweeps_total', { result: 'done' })).toBe(3);
      expect(await metricValue(registry, 'retention_sweep_errors_total')).toBe(0);
      expect(await metricValue(registry, 'retention_last_sweep_timestamp_seconds')).toBeGreaterThan(0);
    } finally {
      await sweeper.close();
    }
  });

  test('two nodes: one sweeps (the other finds the lease held), each session expires once', async ({
    openRedisStore,
  }) => {
    const keyPrefix = `sweep-${randomUUID().slice(0, 8)}:`;
    const [storeA, storeB] = [await openRedisStore({ keyPrefix }), await openRedisStore({ keyPrefix })];
    const ids = Array.from({ length: 40 }, (_, index) => `t/${index}`);
    for (const id of ids) await writeAt(storeA, id, T0);
    const config: RetentionConfig = { retainForMs: DAY, clock: () => T0 + 2 * DAY, sweepBatch: 5 };
    const a = sweeperOn(storeA, config);
    const b = sweeperOn(storeB, config);
    try {
      const outcomes = await Promise.all([a.sweeper.sweepOnce(), b.sweeper.sweepOnce()]);
      const statuses = outcomes.map((outcome) => outcome.status).sort();
      expect(statuses).toEqual(['done', 'leased']);
      const done = outcomes.find((outcome) => outcome.status === 'done');
      expect(done).toMatchObject({ expired: 40, errors: 0, complete: true });
      const expired =
        (await metricValue(a.registry, 'retention_expired_sessions_total')) +
        (await metricValue(b.registry, 'retention_expired_sessions_total'));
      expect(expired).toBe(40);
      for (const id of ids) expect((await storeB.retention.status(id)).status).toBe('expired');
      // The sweeper holds the lease for the interval after its sweep: the other node still finds it held.
      const other = outcomes[0]!.status === 'leased' ? a : b;
      expect(await other.sweeper.sweepOnce()).toEqual({ status: 'leased' });
    } finally {
      await Promise.all([a.sweeper.close(), b.sweeper.close()]);
    }
    // Closed, the holder gave the lease back.
    const c = sweeperOn(storeB, config);
    try {
      expect(await c.sweeper.sweepOnce()).toMatchObject({ status: 'done', expired: 0 });
    } finally {
      await c.sweeper.close();
    }
  });

  test('a session written after its rule lapsed is kept (its last activity is what counts)', async ({
    openRedisStore,
  }) => {
    const store = await openRedisStore({ keyPrefix: `sweep-${randomUUID().slice(0, 8)}:` });
    await writeAt(store, 'w/1', T0);
    await writeAt(store, 'w/1', T0 + 40 * DAY);
    const { sweeper } = sweeperOn(store, { retainForMs: 30 * DAY, clock: () => T0 + 45 * DAY });
    try {
      expect(await sweeper.sweepOnce()).toMatchObject({ status: 'done', expired: 0 });
      expect((await store.head('w/1')).headSeq).toBe(1);
    } finally {
      await sweeper.close();
    }
  });
});

describe('retention sweeper failures', () => {
  test('a store that fails makes the sweep fail, counted and never thrown; no rule means no sweep', async () => {
    const store = new MemoryStore();
    await writeAt(store, 'x/1', T0);
    const idle = sweeperOn(store, {});
    expect(idle.sweeper.policy.active).toBe(false);
    expect(await idle.sweeper.sweepOnce()).toMatchObject({ status: 'done', examined: 0, expired: 0 });
    await store.close();
    const { sweeper, registry } = sweeperOn(store, { retainForMs: DAY, clock: () => T0 + 2 * DAY });
    const outcome = await sweeper.sweepOnce();
    expect(outcome.status).toBe('failed');
    expect(await metricValue(registry, 'retention_sweep_errors_total')).toBe(1);
    expect(await metricValue(registry, 'retention_sweeps_total', { result: 'failed' })).toBe(1);
    await sweeper.close();
  });

  test('a failed clean-up after an expiry is counted; the session stays expired', async () => {
    const store = new MemoryStore();
    await writeAt(store, 'y/1', T0);
    const { sweeper, registry } = sweeperOn(store, { retainForMs: DAY, clock: () => T0 + 2 * DAY }, async () => {
      throw new Error('the archive is down');
    });
    expect(await sweeper.sweepOnce()).toMatchObject({ status: 'done', expired: 1 });
    expect(await metricValue(registry, 'retention_sweep_errors_total')).toBe(1);
    expect((await store.retention.status('y/1')).status).toBe('expired');
    await sweeper.close();
    await store.close();
  });

  test('invalid settings are refused with a clear error', () => {
    const store = new MemoryStore();
    expect(() => sweeperOn(store, { retainForMs: -1 })).toThrow(/retainForMs must be a positive integer/);
    expect(() => sweeperOn(store, { retainForMs: DAY, sweepIntervalMs: 0 })).toThrow(/sweepIntervalMs/);
    expect(() =>
      sweeperOn(store, {
        rules: [
          { prefix: 'a/', retainMs: DAY },
          { prefix: 'a/', retainMs: 2 * DAY },
        ],
      }),
    ).toThrow(/two retention rules for the prefix "a\/"/);
  });
});
