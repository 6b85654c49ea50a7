// A restore on a store whose commits wait for replicas (`waitReplicas`): the swap waits for them too before the
// archive is deleted, so a failover cannot lose the restored prefix with its archive gone. With the replica up the
// restore ends; with it gone the swap is refused as STORE_UNAVAILABLE and the archive stays (the session reads the
// same either way).
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { archiveSession } from '../../server/archive/archive-run.ts';
import { restoreSession } from '../../server/archive/restore-run.ts';
import { TieredStore } from '../../server/archive/tiered-store.ts';
import { RedisStore } from '../../server/store/redis/redis-store.ts';
import { openFileHarness } from '../archive/file-harness.ts';
import { commitAll, exportBytes, turnDrafts } from '../archive/tier-helpers.ts';
import { RedisServer } from '../helpers/redis-server.ts';

describe('restore with waitReplicas: the swap reaches the replicas before the archive goes', () => {
  const stops: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const stop of stops.reverse()) await stop();
  });

  it('restores with its replica up; with the replica gone the swap is refused and the archive stays', async () => {
    const master = await RedisServer.start();
    stops.push(() => master.stop());
    const replica = await RedisServer.start({ extraArgs: ['--replicaof', '127.0.0.1', String(master.port)] });
    stops.push(() => replica.stop());
    const harness = await openFileHarness();
    stops.push(() => harness.close());
    const store = await RedisStore.open({
      url: master.url,
      keyPrefix: 'rwait:',
      waitReplicas: 1,
      commandTimeoutMs: 600,
    });
    stops.push(() => store.close());
    const admin = new Redis(replica.url);
    stops.push(async () => admin.disconnect());
    await expect
      .poll(() => admin.info('replication'), { timeout: 15_000, interval: 100 })
      .toMatch(/master_link_status:up/);
    const archive = harness.backend;
    const tiered = new TieredStore(store, archive);
    const archived = async () => {
      const sessionId = `rwait-${randomUUID()}`;
      await commitAll(store, sessionId, turnDrafts(6));
      const before = await exportBytes(store, sessionId, { limit: 9 });
      expect(await archiveSession({ store, archive, sessionId, token: 'a' })).toMatchObject({ status: 'archived' });
      return { sessionId, before };
    };
    const restore = (sessionId: string) => restoreSession({ store, archive, sessionId, token: `r-${randomUUID()}` });

    const up = await archived();
    expect(await restore(up.sessionId)).toMatchObject({ status: 'restored' });
    expect(await archive.describe(up.sessionId)).toBeUndefined();

    const down = await archived();
    admin.disconnect();
    await replica.kill();
    await expect(restore(down.sessionId)).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    expect(await archive.describe(down.sessionId)).toBeDefined();
    expect((await exportBytes(tiered, down.sessionId, { limit: 9 })).bytes.equals(down.before.bytes)).toBe(true);
  });
});
