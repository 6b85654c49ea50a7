import type { Redis } from 'ioredis';
import { describe, expect, vi } from 'vitest';
import { HubClient } from '../../client/index.ts';
import { MemoryStore } from '../../server/index.ts';
import { MemoryBackend } from '../../server/store/memory/memory-backend.ts';
import type { CommittedBatch, StoreWatchHandlers } from '../../server/store/event-store.ts';
import { test } from '../helpers/fixtures.ts';
import { startHub, type RedisHubCluster, type TestHub } from '../helpers/hub.ts';
import { trackingWebSocket, untilSeq } from './support.ts';

/** A memory store whose watch notifications wait behind a gate: the node's channel falls behind the store. */
class GatedWatchStore extends MemoryStore {
  #open = false;
  readonly #held: (() => void)[] = [];

  override watch(sessionId: string, handlers: StoreWatchHandlers): () => void {
    return super.watch(sessionId, {
      onCommitted: (batch: CommittedBatch) => {
        if (this.#open) handlers.onCommitted(batch);
        else this.#held.push(() => handlers.onCommitted(batch));
      },
      onResync: () => handlers.onResync(),
    });
  }

  release(): void {
    this.#open = true;
    for (const deliver of this.#held.splice(0)) deliver();
  }
}

const drafts = (count: number, from = 0) =>
  Array.from({ length: count }, (_, index) => ({ type: 'test/n', data: { n: from + index } }));
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, index) => from + index);
const it = test.extend('keyPrefix', { scope: 'file' }, 'lost:');

describe('resume on another node', () => {
  it('a node whose channel is behind the store causes no reset and no repeated seq', async () => {
    const backend = new MemoryBackend();
    const gated = new GatedWatchStore({ backend });
    const nodes: TestHub[] = [
      await startHub({ store: new MemoryStore({ backend }) }),
      await startHub({ store: gated }),
    ];
    const [a, b] = [nodes[0]!, nodes[1]!];
    const clients: HubClient[] = [];
    try {
      // Another client keeps node B's channel of the session open: it only learns of commits through the gate.
      const other = new HubClient({ url: b.wsUrl });
      clients.push(other);
      await other.subscribe('s').whenLive();

      const { WebSocket, open } = trackingWebSocket();
      const client = new HubClient({ url: [a.wsUrl, b.wsUrl], WebSocket });
      clients.push(client);
      const subscription = client.subscribe('s');
      await subscription.whenLive();
      const resets: string[] = [];
      const seen: number[] = [];
      subscription.on('reset', (epoch) => resets.push(epoch));
      subscription.on('event', (event) => seen.push(event.seq));
      await client.append('s', drafts(10));
      await untilSeq(subscription, 9);

      for (const socket of open) socket.terminate();
      await vi.waitFor(() => expect(client.url).toBe(b.wsUrl), { timeout: 20_000 });
      await vi.waitFor(() => expect(subscription.isLive && client.state === 'connected').toBe(true), {
        timeout: 20_000,
      });
      expect(resets).toEqual([]);
      expect(seen).toEqual(range(0, 9));

      gated.release();
      await client.append('s', drafts(2, 10));
      await untilSeq(subscription, 11);
      expect(resets).toEqual([]);
      expect(seen).toEqual(range(0, 11));
      expect(subscription.events.map((event) => event.seq)).toEqual(range(0, 11));
    } finally {
      for (const client of clients) client.close();
      for (const node of nodes) await node.close();
    }
  });

  describe('the store lost the tail the client holds (same epoch)', () => {
    let cluster: RedisHubCluster;
    let admin: Redis;

    it.beforeAll(({ redisHubs }) => {
      ({ cluster, admin } = redisHubs);
    });

    /** Keep the first `keep` events of the session's stream, as a replica that missed the last writes would. */
    async function loseTail(sessionId: string, keep: number): Promise<void> {
      const key = `lost:{${sessionId}}:log`;
      const entries = await admin.xrangeBuffer(key, '-', '+');
      const transaction = admin.multi().del(key);
      for (const [id, fields] of entries.slice(0, keep)) transaction.xadd(key, id, ...fields);
      await transaction.exec();
      expect(await admin.xlen(key)).toBe(keep);
    }

    it('SEQ_OUT_OF_RANGE on a resume: reset, rebuild from seq 0, keep going', async () => {
      const [a, b] = [cluster.nodes[0]!, cluster.nodes[1]!];
      const { WebSocket, open } = trackingWebSocket();
      const client = new HubClient({ url: [a.wsUrl, b.wsUrl], WebSocket });
      try {
        const subscription = client.subscribe('t');
        await subscription.whenLive();
        const resets: string[] = [];
        const seen: number[] = [];
        subscription.on('reset', (next) => resets.push(next));
        subscription.on('event', (event) => seen.push(event.seq));
        await client.append('t', drafts(10));
        await untilSeq(subscription, 9);
        // Subscribed before the first write: the epoch came with the first events.
        const epoch = subscription.epoch;
        expect(epoch).toBeDefined();

        await loseTail('t', 8);
        // Node B has no channel for the session yet: it reads the head (7) and refuses fromSeq 10.
        for (const socket of open) socket.terminate();
        await vi.waitFor(() => expect(resets).toEqual([epoch]), { timeout: 20_000 });
        await vi.waitFor(() => expect(subscription.isLive && subscription.lastSeq === 7).toBe(true), {
          timeout: 20_000,
        });
        expect(subscription.state).toBe('live');
        expect(seen).toEqual([...range(0, 9), ...range(0, 7)]);
        expect(subscription.events.map((event) => event.seq)).toEqual(range(0, 7));

        await client.append('t', drafts(1, 8));
        await untilSeq(subscription, 8);
        expect(seen.slice(18)).toEqual([8]);
        expect(resets).toHaveLength(1);
      } finally {
        client.close();
      }
    });
  });
});
