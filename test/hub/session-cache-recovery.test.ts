import { describe, expect, vi } from 'vitest';
import { AppendPipeline, type AppendInput } from '../../server/append/pipeline.ts';
import { resolveLimits } from '../../server/limits/limits.ts';
import { createLogger } from '../../server/logger.ts';
import { HubMetrics } from '../../server/metrics.ts';
import { SessionCache } from '../../server/append/session-cache.ts';
import type { EventDraft } from '../../shared/index.ts';
import type { EventStore } from '../../server/store/event-store.ts';
import { MemoryBackend } from '../../server/store/memory/memory-backend.ts';
import { MemoryStore } from '../../server/store/memory/memory-store.ts';
import { it, test } from '../helpers/fixtures.ts';
import { RawHubClient } from '../helpers/raw-hub-client.ts';
import { storeReadLimits } from '../../server/limits/store-reads.ts';

const WAIT = { timeout: 10_000, interval: 20 };
const message = (content: string) => ({ type: 'user/message', data: { role: 'user', content } });
/** Replaces seq 0 on the surface: valid only where seq 0 is on the surface (a user message, not a custom event). */
const replaceFirst = {
  type: 'user/message',
  data: { role: 'user', content: 'edited' },
  surfaceOp: { op: 'replace', startSeq: 0, endSeq: 0 },
  sourceEventSeqs: [0],
} as const satisfies EventDraft;

/** One hub node's append path (pipeline and session cache) on `store`. */
function node(store: EventStore): {
  append: (input: Omit<AppendInput, 'keyOwner'>) => Promise<{ firstSeq: number }>;
} {
  const logger = createLogger('silent');
  const metrics = new HubMetrics('t_');
  const cache = new SessionCache({
    store,
    logger,
    metrics,
    reads: storeReadLimits({ catchUpPageSize: 100, maxFrameBytes: 1024 * 1024, maxEventBytes: 256 * 1024 }),
    maxSessions: 100,
    maxBytes: 1 << 20,
    idleMs: 60_000,
    lifecycle: true,
  });
  const pipeline = new AppendPipeline({ store, cache, limits: resolveLimits(), retries: 3, logger, metrics });
  return { append: (input) => pipeline.append({ ...input, keyOwner: 'test' }) };
}

/**
 * A store that lost writes in the same epoch (a failover to a lagging replica, a crash before fsync) must not
 * leave a node validating against events the store no longer has. The memory engine stands in for the store
 * here: its backend lets a test drop the tail of a log, as such a failure would.
 */
describe('session cache: a store that lost events this node saw', () => {
  it('places the next append at the store head (no SEQ_CONFLICT storm) and reports the true head', async () => {
    const backend = new MemoryBackend();
    const a = node(new MemoryStore({ backend }));
    for (let index = 0; index < 5; index++) await a.append({ sessionId: 's1', events: [message(`m${index}`)] });
    backend.session('s1').events.splice(3); // seqs 3 and 4 are lost, the epoch survives
    expect((await a.append({ sessionId: 's1', events: [message('after')] })).firstSeq).toBe(3);
    await expect(a.append({ sessionId: 's1', events: [message('late')], expectedSeq: 3 })).rejects.toMatchObject({
      code: 'SEQ_CONFLICT',
      details: { headSeq: 3 },
    });
  });

  it('rebuilds an entry whose events fail against what the store holds now, instead of answering INTERNAL', async () => {
    const backend = new MemoryBackend();
    const a = node(new MemoryStore({ backend }));
    const b = node(new MemoryStore({ backend }));
    await a.append({ sessionId: 's2', events: [{ type: 'custom/x', data: {} }] });
    backend.session('s2').events.splice(0); // seq 0 lost; another writer puts a user message there
    await b.append({ sessionId: 's2', events: [message('a')] });
    await b.append({ sessionId: 's2', events: [replaceFirst] });
    // A's entry still holds custom/x at seq 0, which the replace at seq 1 does not fit: A must re-read, not fail.
    for (let index = 0; index < 3; index++) {
      expect((await a.append({ sessionId: 's2', events: [message(`c${index}`)] })).firstSeq).toBe(2 + index);
    }
  });
});

const onRedis = test.extend('keyPrefix', { scope: 'file' }, 'scr:');

describe('hub on Redis: the session cache is rebuilt when the store reconnects', () => {
  const it = onRedis;

  it('never validates an append against events the store lost while the node was cut off', async ({
    redisHubs: fixture,
  }) => {
    const [nodeA, nodeB] = fixture.cluster.nodes;
    const [storeA] = fixture.cluster.stores;
    const writerA = await RawHubClient.connect(nodeA!.wsUrl);
    const writerB = await RawHubClient.connect(nodeB!.wsUrl);
    expect(await writerA.request({ type: 'append', sessionId: 'lost', events: [message('a')] })).toMatchObject({
      type: 'ack',
      firstSeq: 0,
    });
    // The store loses seq 0 (the epoch survives), and the nodes' Redis connections drop, as in a failover.
    let reconnected = 0;
    const stopWatching = storeA!.onReconnect(() => reconnected++);
    await fixture.admin.del(storeA!.keys('lost').log);
    await fixture.admin.client('KILL', 'TYPE', 'normal', 'SKIPME', 'yes');
    await vi.waitFor(() => expect(reconnected).toBeGreaterThan(0), WAIT);
    stopWatching();
    // Node B writes a custom event at seq 0. Node A's cache thought seq 0 was a user message; after the
    // reconnect it re-reads, so the replace of seq 0 is refused there instead of corrupting the log.
    const written = await vi.waitFor(async () => {
      const reply = await writerB.request({
        type: 'append',
        sessionId: 'lost',
        events: [{ type: 'custom/x', data: {} }],
      });
      expect(reply).toMatchObject({ type: 'ack', firstSeq: 0 });
      return reply;
    }, WAIT);
    expect(written.type).toBe('ack');
    const refused = await writerA.request({ type: 'append', sessionId: 'lost', events: [replaceFirst] });
    expect(refused).toMatchObject({ type: 'error', code: 'SURFACE_VIOLATION' });
    const stored = await storeA!.read('lost', 0, 10);
    expect(stored.map((event) => event.type)).toEqual(['custom/x']);
    await writerA.close();
    await writerB.close();
  });
});
