// Redaction across a Sentinel failover (issue #30 b), with the hub's commits waiting for a replica (`waitReplicas`
// 1): a redaction acknowledged before the master dies shows on every read path after the replica took over; one
// whose replica lagged (frozen, its link cut) is refused with STORE_UNAVAILABLE (`maybeCommitted`) instead of
// acknowledged and lost with the master, the reads show all of it or none, and a retry completes it once.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisStore } from '../../server/store/redis/redis-store.ts';
import { startHub, type TestHub } from '../helpers/hub.ts';
import type { RedisServer } from '../helpers/redis-server.ts';
import { RedisSentinelSetup } from '../helpers/redis-sentinel.ts';
import { outcomeOn, redact, seed, SEQS } from '../redaction/redaction-outcome.ts';

const WAIT = { timeout: 30_000, interval: 100 };

describe('redaction across a Sentinel failover, commits waiting for 1 replica', () => {
  let setup: RedisSentinelSetup;
  let store: RedisStore;
  let node: TestHub;

  beforeAll(async () => {
    setup = await RedisSentinelSetup.start();
    store = await RedisStore.open({
      sentinels: setup.sentinelList.split(','),
      sentinelName: setup.name,
      waitReplicas: 1,
      onError: () => undefined, // the killed master's connection errors, expected here
    });
    node = await startHub({ store });
  });
  afterAll(async () => {
    await node?.close();
    await store?.close();
    await setup?.stop();
  });

  /** The servers the sentinels name master and replica now. */
  async function roles(): Promise<{ master: RedisServer; replica: RedisServer }> {
    const port = await setup.currentMasterPort();
    return port === setup.master.port
      ? { master: setup.master, replica: setup.replica }
      : { master: setup.replica, replica: setup.master };
  }

  /** Kill the master; resolves once the sentinels named the replica and the hub reads again. */
  async function failOver(master: RedisServer, replica: RedisServer, sessionId: string): Promise<void> {
    await master.kill();
    await expect.poll(() => setup.currentMasterPort(), WAIT).toBe(replica.port);
    await expect
      .poll(async () => (await fetch(`${node.url}/v1/sessions/${encodeURIComponent(sessionId)}`)).status, WAIT)
      .toBe(200);
  }

  /** Restart the killed server: the sentinels make it the new master's replica; resolves once it is linked. */
  async function rejoin(server: RedisServer, master: RedisServer): Promise<void> {
    await server.restart();
    const admin = new Redis(master.url);
    try {
      await expect.poll(async () => /^slave0:.*state=online/m.test(await admin.info('replication')), WAIT).toBe(true);
    } finally {
      admin.disconnect();
    }
  }

  it('a redaction acknowledged before the master dies shows on every read path after the failover', async () => {
    const sessionId = 'failover/acked';
    expect((await store.commit(seed(sessionId))).status).toBe('committed');
    const { master, replica } = await roles();
    const reply = await redact(node, sessionId);
    if (reply instanceof Error) throw reply;
    expect(reply.status).toBe(200);
    expect(await reply.json()).toMatchObject({ seqs: SEQS, auditSeq: 6 });
    await failOver(master, replica, sessionId);
    expect(await outcomeOn(node, sessionId)).toBe('all');
    await rejoin(master, replica);
  });

  it('a redaction its replica did not get is refused, not lost: all or none after the failover, a retry completes it', async () => {
    const sessionId = 'failover/lagging';
    expect((await store.commit(seed(sessionId))).status).toBe('committed');
    const { master, replica } = await roles();
    // The replica misses what follows: frozen, and its link dropped by the master (nothing left in flight).
    replica.pause();
    let reply: Response | Error;
    try {
      const admin = new Redis(master.url);
      await admin.call('CLIENT', 'KILL', 'TYPE', 'replica').finally(() => admin.disconnect());
      reply = await redact(node, sessionId);
      await master.kill();
    } finally {
      replica.resume();
    }
    if (reply instanceof Error) throw reply;
    // Acknowledging it would be a lie: the master that ran it is gone, the replica never had it.
    expect(reply.status).toBe(503);
    expect(await reply.json()).toMatchObject({
      error: { code: 'STORE_UNAVAILABLE', details: { maybeCommitted: true } },
    });
    await failOver(master, replica, sessionId);
    expect(['all', 'none']).toContain(await outcomeOn(node, sessionId));

    await rejoin(master, replica);
    const retried = await redact(node, sessionId);
    if (retried instanceof Error) throw retried;
    expect(retried.status).toBe(200);
    expect(await outcomeOn(node, sessionId)).toBe('all');
    const again = await redact(node, sessionId);
    if (again instanceof Error) throw again;
    expect(await again.json()).toMatchObject({ seqs: [], unchanged: SEQS, auditSeq: null });
    expect(await outcomeOn(node, sessionId)).toBe('all');
  });
});
