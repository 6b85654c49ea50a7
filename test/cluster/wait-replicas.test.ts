import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { RedisStore } from '../../server/store/redis/redis-store.ts';
import { RedisCluster } from '../helpers/redis-cluster.ts';
import { RedisServer } from '../helpers/redis-server.ts';

const drafts = (label: string) => [{ type: 'test/event', data: { label } }];

describe('RedisStore waitReplicas: a commit is acknowledged once n replicas have it', () => {
  const stops: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const stop of stops.reverse()) await stop();
  });

  it('acknowledges with its replica up, and refuses (maybeCommitted) when the replica is gone', async () => {
    const master = await RedisServer.start();
    stops.push(() => master.stop());
    const replica = await RedisServer.start({ extraArgs: ['--replicaof', '127.0.0.1', String(master.port)] });
    stops.push(() => replica.stop());
    const store = await RedisStore.open({
      url: master.url,
      keyPrefix: 'wait:',
      waitReplicas: 1,
      commandTimeoutMs: 600,
    });
    stops.push(() => store.close());
    const admin = new Redis(replica.url);
    stops.push(async () => admin.disconnect());
    await expect
      .poll(() => admin.info('replication'), { timeout: 15_000, interval: 100 })
      .toMatch(/master_link_status:up/);
    expect(await store.commit({ sessionId: 'w', expectedSeq: 0, events: drafts('a') })).toMatchObject({
      status: 'committed',
    });
    const head = await store.head('w');
    expect(
      await store.commit({ sessionId: 'w', expectedSeq: head.headSeq + 1, events: drafts('b'), idempotencyKey: 'k' }),
    ).toMatchObject({ status: 'committed' });

    admin.disconnect();
    await replica.kill();
    const next = (await store.head('w')).headSeq + 1;
    await expect(
      store.commit({ sessionId: 'w', expectedSeq: next, events: drafts('c'), idempotencyKey: 'k2' }),
    ).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE', maybeCommitted: true });
    // It did reach the master: a retry with its key is a duplicate, not a second copy.
    expect(
      await store.commit({ sessionId: 'w', expectedSeq: next, events: drafts('c'), idempotencyKey: 'k2' }),
    ).toMatchObject({ status: 'duplicate', firstSeq: next });
  });

  it('lets concurrent commits share one WAIT instead of queueing one each', async () => {
    const master = await RedisServer.start();
    stops.push(() => master.stop());
    const replica = await RedisServer.start({ extraArgs: ['--replicaof', '127.0.0.1', String(master.port)] });
    stops.push(() => replica.stop());
    const store = await RedisStore.open({ url: master.url, keyPrefix: 'shared-wait:', waitReplicas: 1 });
    stops.push(() => store.close());
    const admin = new Redis(master.url);
    stops.push(async () => admin.disconnect());
    const replicaAdmin = new Redis(replica.url);
    stops.push(async () => replicaAdmin.disconnect());
    await expect
      .poll(() => replicaAdmin.info('replication'), { timeout: 15_000, interval: 100 })
      .toMatch(/master_link_status:up/);
    const waitCalls = async (): Promise<number> =>
      Number(/cmdstat_wait:calls=(\d+)/.exec(await admin.info('commandstats'))?.[1] ?? 0);
    const before = await waitCalls();
    const sessions = Array.from({ length: 20 }, (_, index) => `sw-${index}`);
    const results = await Promise.all(
      sessions.map((sessionId) => store.commit({ sessionId, expectedSeq: 0, events: drafts(sessionId) })),
    );
    expect(results.every((result) => result.status === 'committed')).toBe(true);
    const waits = (await waitCalls()) - before;
    expect(waits).toBeGreaterThan(0);
    expect(waits).toBeLessThan(sessions.length);
  });

  it('a WAIT in flight holds neither the other commands nor the commits sent meanwhile (one WAIT for them all)', async () => {
    // Issue 26 item 17: WAIT ran on the command connection, behind and ahead of everything else, one per commit.
    const master = await RedisServer.start();
    stops.push(() => master.stop());
    const replica = await RedisServer.start({ extraArgs: ['--replicaof', '127.0.0.1', String(master.port)] });
    stops.push(() => replica.stop());
    const store = await RedisStore.open({
      url: master.url,
      keyPrefix: 'held:',
      waitReplicas: 1,
      commandTimeoutMs: 8000,
    });
    stops.push(() => store.close());
    const admin = new Redis(master.url);
    stops.push(async () => admin.disconnect());
    const replicaAdmin = new Redis(replica.url);
    await expect
      .poll(() => replicaAdmin.info('replication'), { timeout: 15_000, interval: 100 })
      .toMatch(/master_link_status:up/);
    replicaAdmin.disconnect();
    expect(await store.commit({ sessionId: 'h0', expectedSeq: 0, events: drafts('warm') })).toMatchObject({
      status: 'committed',
    });
    const blocked = async (): Promise<number> =>
      Number(/^blocked_clients:(\d+)/m.exec(await admin.info('clients'))?.[1] ?? -1);
    const waitCalls = async (): Promise<number> =>
      Number(/cmdstat_wait:calls=(\d+)/.exec(await admin.info('commandstats'))?.[1] ?? 0);
    const before = await waitCalls();

    replica.pause(); // the replica stops acknowledging: each WAIT blocks for its whole timeout (4 s)
    try {
      const first = store.commit({ sessionId: 'h1', expectedSeq: 0, events: drafts('first') });
      first.catch(() => undefined);
      await expect.poll(blocked, { timeout: 10_000, interval: 20 }).toBe(1);
      // A head answered while that WAIT still blocks: it did not queue behind it.
      expect(await store.head('h0')).toMatchObject({ headSeq: 0 });
      expect(await blocked()).toBe(1);
      // Commits sent one by one while it blocks share the next WAIT.
      const later: Promise<unknown>[] = [];
      for (let index = 0; index < 10; index++) {
        later.push(store.commit({ sessionId: `h-later-${index}`, expectedSeq: 0, events: drafts('later') }));
        await new Promise((resolve) => setImmediate(resolve));
      }
      const outcomes = await Promise.allSettled([first, ...later]);
      for (const outcome of outcomes) {
        expect(outcome).toMatchObject({
          status: 'rejected',
          reason: { code: 'STORE_UNAVAILABLE', maybeCommitted: true },
        });
      }
      expect((await waitCalls()) - before).toBeLessThanOrEqual(2);
    } finally {
      replica.resume();
    }
    // They did commit on the master.
    expect(await store.head('h-later-9')).toMatchObject({ headSeq: 0 });
  });

  it('waits on the session’s own master in a cluster', async () => {
    const cluster = await RedisCluster.start();
    stops.push(() => cluster.stop());
    const store = await RedisStore.open({ cluster: cluster.urls, keyPrefix: 'wait:', waitReplicas: 1 });
    stops.push(() => store.close());
    for (let index = 0; index < 6; index++) {
      const sessionId = `cw-${index}`;
      expect(await store.commit({ sessionId, expectedSeq: 0, events: drafts('x') })).toMatchObject({
        status: 'committed',
      });
    }
  });
});
