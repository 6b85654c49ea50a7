import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ServerMessage } from '../../shared/protocol.ts';
import type { GroupCommitRequest, GroupCommitResult } from '../../server/store/event-store.ts';
import { StoreUnavailableError } from '../../server/store/event-store.ts';
import { MemoryStore } from '../../server/store/memory/memory-store.ts';
import { startHub, type TestHub } from '../helpers/hub.ts';
import { RawHubClient } from '../helpers/raw-hub-client.ts';

const WAIT = { timeout: 10_000, interval: 20 };
const event = (n: number) => ({ type: 'test/n', data: { n } });

/** A memory store whose next commit waits at a gate and then, if told so, fails as if Redis were unreachable. */
class TroubledStore extends MemoryStore {
  #gate: Promise<void> | undefined;
  #open = (): void => undefined;
  reached = Promise.resolve();
  #reached = (): void => undefined;
  failNext = false;

  holdNext(): void {
    this.#gate = new Promise((resolve) => {
      this.#open = resolve;
    });
    this.reached = new Promise((resolve) => {
      this.#reached = resolve;
    });
  }

  release(): void {
    this.#open();
  }

  override async commitGroup(request: GroupCommitRequest): Promise<GroupCommitResult> {
    const gate = this.#gate;
    this.#gate = undefined;
    if (gate !== undefined) {
      this.#reached();
      await gate;
    }
    if (this.failNext) {
      this.failNext = false;
      throw new StoreUnavailableError('injected outage');
    }
    return super.commitGroup(request);
  }
}

describe('hub: pipelined appends never overtake one that must be re-sent', () => {
  let hub: TestHub | undefined;
  let client: RawHubClient | undefined;
  let nextId = 1;
  afterEach(async () => {
    await client?.close();
    await hub?.close();
  });

  const send = (raw: RawHubClient, message: Record<string, unknown>): Promise<ServerMessage> => {
    const id = nextId++;
    const from = raw.messages.length;
    raw.send({ type: 'append', ...message, id });
    return raw.waitFor((reply) => 'id' in reply && reply.id === id, { from });
  };

  it('refuses an append sent behind a rate-limited one until that one is re-sent', async () => {
    const store = new MemoryStore();
    hub = await startHub({ store, limits: { appendsPerSecond: 5, appendBurst: 1 } });
    client = await RawHubClient.connect(hub.wsUrl);
    const sessionId = 'fence-rate';
    const raw = client;
    const replies = await Promise.all([
      send(raw, { sessionId, events: [event(0)], idempotencyKey: 'k0' }),
      send(raw, { sessionId, events: [event(1)], idempotencyKey: 'k1', after: 'k0' }),
      send(raw, { sessionId, events: [event(2)], idempotencyKey: 'k2', after: 'k1' }),
      send(raw, { sessionId, events: [event(3)], idempotencyKey: 'k3', after: 'k2' }),
    ]);
    expect(replies[0]).toMatchObject({ type: 'ack', firstSeq: 0 });
    expect(replies[1]).toMatchObject({ type: 'error', code: 'RATE_LIMITED' });
    // Both later ones are fenced (k2 behind k1, k3 behind the fenced k2), nothing written.
    expect(replies[2]).toMatchObject({ type: 'error', code: 'APPEND_FENCED', details: { after: 'k1' } });
    expect(replies[3]).toMatchObject({ type: 'error', code: 'APPEND_FENCED', details: { after: 'k2' } });
    expect((await store.head(sessionId)).headSeq).toBe(0);
    // Still fenced until k1 itself comes back.
    expect(await send(raw, { sessionId, events: [event(2)], idempotencyKey: 'k2', after: 'k1' })).toMatchObject({
      code: 'APPEND_FENCED',
    });
    await vi.waitFor(async () => {
      const reply = await send(raw, { sessionId, events: [event(1)], idempotencyKey: 'k1', after: 'k0' });
      expect(reply).toMatchObject({ type: 'ack', firstSeq: 1 });
    }, WAIT);
    await vi.waitFor(async () => {
      const reply = await send(raw, { sessionId, events: [event(2)], idempotencyKey: 'k2', after: 'k1' });
      expect(reply).toMatchObject({ type: 'ack', firstSeq: 2 });
    }, WAIT);
    const stored = await store.read(sessionId, 0, 10);
    expect(stored.map((stored) => stored.data)).toEqual([{ n: 0 }, { n: 1 }, { n: 2 }]);
  });

  it('lets an append through that does not name the failed one (the client gave it up)', async () => {
    const store = new MemoryStore();
    hub = await startHub({ store, limits: { appendsPerSecond: 5, appendBurst: 1 } });
    client = await RawHubClient.connect(hub.wsUrl);
    const sessionId = 'fence-given-up';
    const raw = client;
    await send(raw, { sessionId, events: [event(0)], idempotencyKey: 'a0' });
    expect(await send(raw, { sessionId, events: [event(1)], idempotencyKey: 'a1' })).toMatchObject({
      code: 'RATE_LIMITED',
    });
    await vi.waitFor(async () => {
      const reply = await send(raw, { sessionId, events: [event(2)], idempotencyKey: 'a2' });
      expect(reply).toMatchObject({ type: 'ack', firstSeq: 1 });
    }, WAIT);
  });

  it('fails the appends queued behind one the store could not take, and fences the ones sent after', async () => {
    const store = new TroubledStore();
    hub = await startHub({ store, limits: { maxEventsPerAppend: 2 } });
    client = await RawHubClient.connect(hub.wsUrl);
    const raw = client;
    const sessionId = 'fence-outage';
    store.holdNext();
    const first = send(raw, { sessionId, events: [event(0)], idempotencyKey: 'o0' });
    await store.reached;
    // o1 fills a group by itself (2 events, the per-append limit); o2 queues behind it in the next group.
    const second = send(raw, { sessionId, events: [event(1), event(2)], idempotencyKey: 'o1', after: 'o0' });
    const third = send(raw, { sessionId, events: [event(3)], idempotencyKey: 'o2', after: 'o1' });
    await vi.waitFor(async () => expect((await hub!.hub.metrics.appendsQueued.get()).values[0]?.value).toBe(3), WAIT);
    store.release();
    store.holdNext(); // before the pipeline gets to the next commit (it is a few microtasks away)
    expect(await first).toMatchObject({ type: 'ack', firstSeq: 0 });
    await store.reached;
    store.failNext = true;
    store.release();
    expect(await second).toMatchObject({ type: 'error', code: 'STORE_UNAVAILABLE' });
    expect(await third).toMatchObject({ type: 'error', code: 'STORE_UNAVAILABLE' });
    expect(await send(raw, { sessionId, events: [event(4)], idempotencyKey: 'o3', after: 'o2' })).toMatchObject({
      code: 'APPEND_FENCED',
    });
    expect((await store.head(sessionId)).headSeq).toBe(0);
    // Re-sent in order, they commit in order.
    const resent = await Promise.all([
      send(raw, { sessionId, events: [event(1), event(2)], idempotencyKey: 'o1' }),
      send(raw, { sessionId, events: [event(3)], idempotencyKey: 'o2', after: 'o1' }),
      send(raw, { sessionId, events: [event(4)], idempotencyKey: 'o3', after: 'o2' }),
    ]);
    expect(resent.map((reply) => reply.type === 'ack' && reply.firstSeq)).toEqual([1, 3, 4]);
  });
});
