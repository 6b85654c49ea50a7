import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CloseCode } from '../../shared/protocol.ts';
import { MemoryStore } from '../../server/store/memory/memory-store.ts';
import { startHub, type TestHub } from '../helpers/hub.ts';
import { RawHubClient } from '../helpers/raw-hub-client.ts';

describe('hub: connection limits', () => {
  let hub: TestHub;
  const store = new MemoryStore();
  beforeAll(async () => {
    hub = await startHub({
      store,
      limits: { maxFrameBytes: 2048, maxSubscriptionsPerConnection: 2, maxConnections: 3 },
    });
  });
  afterAll(async () => {
    await hub.close();
    await store.close();
  });

  it('closes a connection that sends a frame above maxFrameBytes with 1009', async () => {
    const client = await RawHubClient.connect(hub.wsUrl);
    client.send({ type: 'append', id: 9, sessionId: 'big', events: [{ type: 'x/y', data: 'x'.repeat(4096) }] });
    expect((await client.closed).code).toBe(CloseCode.MESSAGE_TOO_BIG);
    expect((await store.head('big')).headSeq).toBe(-1);
  });

  it('refuses subscriptions beyond the per-connection limit', async () => {
    const client = await RawHubClient.connect(hub.wsUrl);
    await client.request({ type: 'subscribe', sessionId: 'one' });
    await client.request({ type: 'subscribe', sessionId: 'two' });
    expect(await client.request({ type: 'subscribe', sessionId: 'three' })).toMatchObject({
      type: 'error',
      code: 'TOO_MANY_SUBSCRIPTIONS',
      details: { limit: 2 },
    });
    await client.request({ type: 'unsubscribe', sessionId: 'one' });
    expect(await client.request({ type: 'subscribe', sessionId: 'three' })).toMatchObject({ type: 'subscribed' });
    await client.close();
  });

  it('refuses a hello beyond maxConnections with TOO_MANY_CONNECTIONS and 1013 TRY_AGAIN_LATER', async () => {
    await vi.waitFor(() => expect(hub.hub.connectionCount).toBe(0));
    const clients = await Promise.all([1, 2, 3].map(() => RawHubClient.connect(hub.wsUrl)));
    const extra = await RawHubClient.connect(hub.wsUrl, { hello: false });
    expect(await extra.request({ type: 'hello', versions: [1] })).toMatchObject({ code: 'TOO_MANY_CONNECTIONS' });
    expect((await extra.closed).code).toBe(CloseCode.TRY_AGAIN_LATER);
    await Promise.all(clients.map((client) => client.close()));
  });
});
