import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HubClient } from '../../client/index.ts';
import { MemoryStore } from '../../server/index.ts';
import { StoreUnavailableError } from '../../server/store/event-store.ts';
import type { GroupCommitRequest, GroupCommitResult } from '../../server/store/event-store.ts';
import { ownedIdempotencyKey } from '../../server/append/owned-key.ts';
import { startHub, type TestHub } from '../helpers/hub.ts';

/** A memory store that is "unreachable" for the first commit of each idempotency key listed (as stored). */
class FlakyCommitStore extends MemoryStore {
  readonly failFirst = new Set<string>();

  override async commitGroup(request: GroupCommitRequest): Promise<GroupCommitResult> {
    const listed = request.batches.filter((batch) => this.failFirst.delete(batch.idempotencyKey ?? ''));
    if (listed.length > 0) throw new StoreUnavailableError('injected outage');
    return super.commitGroup(request);
  }
}

describe('pipelined appends to one session', () => {
  let store: FlakyCommitStore;
  let hub: TestHub;
  let client: HubClient;

  beforeAll(async () => {
    store = new FlakyCommitStore();
    hub = await startHub({ store });
    client = new HubClient({ url: hub.wsUrl, reconnect: { initialDelayMs: 20, maxDelayMs: 50 } });
  });
  afterAll(async () => {
    client.close();
    await hub.close();
    await store.close();
  });

  it('commit in call order even when the first one gets STORE_UNAVAILABLE and is retried', async () => {
    store.failFirst.add(ownedIdempotencyKey('anonymous', 'order-0'));
    const appends = [0, 1, 2, 3].map((n) =>
      client.append('order/1', { type: 'test/n', data: { n } }, { idempotencyKey: `order-${n}` }),
    );
    const committed = await Promise.all(appends);
    expect(committed.map(([event]) => event?.seq)).toEqual([0, 1, 2, 3]);
    const stored = await store.read('order/1', 0, 10);
    expect(stored.map((event) => event.data)).toEqual([{ n: 0 }, { n: 1 }, { n: 2 }, { n: 3 }]);
    expect(store.failFirst.size).toBe(0);
  });

  it('a retry on one session does not hold back appends to another', async () => {
    store.failFirst.add('slow-0');
    const slow = client.append('order/2', { type: 'test/n', data: { n: 0 } }, { idempotencyKey: 'slow-0' });
    const other = await client.append('order/3', { type: 'test/n', data: { n: 0 } });
    expect(other[0]?.seq).toBe(0);
    expect((await slow)[0]?.seq).toBe(0);
  });
});
