import { afterEach, describe, expect, vi } from 'vitest';
import WebSocket from 'ws';
import { HubClient } from '../../client/index.ts';
import { freePort } from '../helpers/free-port.ts';
import { trackingWebSocket, untilSeq } from '../client/support.ts';
import { test, type RedisHubsFixture } from '../helpers/fixtures.ts';

const user = (content: string) => ({ type: 'user/message', data: { role: 'user', content } });
const fastRetry = { initialDelayMs: 20, maxDelayMs: 200 };

const it = test.extend('keyPrefix', { scope: 'file' }, 'fer:').extend('hubCount', { scope: 'file' }, 2);

/**
 * The SDK subscribed to a session before anybody wrote it (no epoch yet): it learns the epoch the first commit
 * creates, and resumes after a reconnect (on another node) with no reset and no gap.
 */
describe('SDK on Redis: a subscription made before the first write', () => {
  let fixture: RedisHubsFixture;
  it.beforeAll(({ redisHubs }) => {
    fixture = redisHubs;
  });
  const cleanup: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  function watcherOn(urls: string[]) {
    const tracked = trackingWebSocket();
    const client = new HubClient({ url: urls, reconnect: fastRetry, WebSocket: tracked.WebSocket });
    cleanup.push(() => client.close());
    return { client, tracked };
  }

  it('adopts the first epoch from its first events and resumes after a reconnect: no reset, no gap', async () => {
    const [nodeA, nodeB] = fixture.cluster.nodes;
    const { client, tracked } = watcherOn([nodeA!.wsUrl, nodeB!.wsUrl]);
    const writer = new HubClient({ url: nodeB!.wsUrl });
    cleanup.push(() => writer.close());
    const subscription = client.subscribe('fresh/1');
    const resets: string[] = [];
    subscription.on('reset', (epoch) => resets.push(epoch));
    await subscription.whenLive();
    expect(subscription.epoch).toBeUndefined();
    expect(subscription.snapshot()).toEqual({ sessionId: 'fresh/1', epoch: null, events: [] });

    await writer.append('fresh/1', [user('a'), user('b')]);
    await untilSeq(subscription, 1);
    const { epoch } = await fixture.cluster.stores[0]!.head('fresh/1');
    expect(epoch).not.toBe('');
    expect(subscription.epoch).toBe(epoch);

    for (const socket of tracked.open) socket.terminate();
    await writer.append('fresh/1', user('c'));
    await untilSeq(subscription, 2);
    await writer.append('fresh/1', user('d'));
    await untilSeq(subscription, 3);
    expect(subscription.events.map((event) => event.seq)).toEqual([0, 1, 2, 3]);
    expect(subscription.events).toEqual(await fixture.cluster.stores[0]!.read('fresh/1', 0, 10));
    expect(subscription.epoch).toBe(epoch);
    expect(resets).toEqual([]);
  });

  it('adopts the epoch of its resubscribe when the first commit came while it was away: no reset', async () => {
    const [nodeA] = fixture.cluster.nodes;
    // While `away`, the watcher's reconnects go to a port nobody listens on.
    let away = false;
    const deadUrl = `ws://127.0.0.1:${await freePort()}/v1/ws`;
    const open = new Set<WebSocket>();
    class Gated extends WebSocket {
      constructor(url: string) {
        super(away ? deadUrl : url);
        open.add(this);
        this.once('close', () => open.delete(this));
      }
    }
    const client = new HubClient({ url: nodeA!.wsUrl, reconnect: fastRetry, WebSocket: Gated });
    cleanup.push(() => client.close());
    const errors = new Set<string>();
    client.on('error', (error) => errors.add(error.code));
    const writer = new HubClient({ url: nodeA!.wsUrl });
    cleanup.push(() => writer.close());
    const subscription = client.subscribe('fresh/2');
    const resets: string[] = [];
    subscription.on('reset', (epoch) => resets.push(epoch));
    await subscription.whenLive();
    const snapshot = subscription.snapshot();

    away = true;
    for (const socket of open) socket.terminate();
    await vi.waitFor(() => expect(client.state).not.toBe('connected'));
    await writer.append('fresh/2', [user('a'), user('b')]);
    away = false;
    await untilSeq(subscription, 1);
    const { epoch } = await fixture.cluster.stores[0]!.head('fresh/2');
    expect(subscription.epoch).toBe(epoch);
    expect(subscription.events.map((event) => event.seq)).toEqual([0, 1]);
    expect(resets).toEqual([]);
    expect([...errors].filter((code) => code !== 'CONNECT_FAILED')).toEqual([]);

    // A snapshot taken before the first write (no epoch) resumes too, on a new client.
    const { client: later } = watcherOn([nodeA!.wsUrl]);
    const resumed = later.subscribe('fresh/2', { resume: snapshot });
    await untilSeq(resumed, 1);
    expect(resumed.epoch).toBe(epoch);
  });
});
