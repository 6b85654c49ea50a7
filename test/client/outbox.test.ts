import { afterEach, describe, expect, it } from 'vitest';
import { HubClient } from '../../client/index.ts';
import type { HubClientState } from '../../client/index.ts';
import { freePort } from '../helpers/free-port.ts';
import { memoryStore, startNode, wsUrl, type Node } from './hubs.ts';

const user = (content: string) => ({ type: 'user/message', data: { role: 'user', content } });
const fastRetry = { initialDelayMs: 20, maxDelayMs: 100 };

describe('outbox: appends while disconnected', () => {
  const cleanup: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  it('queues appends until the hub is reachable, then commits them exactly once, in order', async () => {
    const port = await freePort();
    const client = new HubClient({ url: wsUrl(port), reconnect: fastRetry, outboxLimit: 2 });
    cleanup.push(() => client.close());
    const states: HubClientState[] = [];
    client.on('state', (next) => states.push(next));
    const first = client.append('outbox/1', user('one'));
    const second = client.append('outbox/1', user('two'));
    await expect(client.append('outbox/1', user('three'))).rejects.toMatchObject({
      code: 'OUTBOX_FULL',
      details: { limit: 2 },
    });
    expect(client.pendingAppends).toBe(2);

    const store = memoryStore();
    const node: Node = await startNode(store, port);
    cleanup.push(
      () => store.close(),
      () => node.hub.close(),
    );
    const [[one], [two]] = await Promise.all([first, second]);
    expect([one!.seq, two!.seq]).toEqual([0, 1]);
    const log = await store.read('outbox/1', 0, 10);
    expect(log.map((event) => (event.data as { content: string }).content)).toEqual(['one', 'two']);
    expect(client.state).toBe('connected');
    expect(states).toContain('disconnected');
    // `state` fires once per change: never the same state twice in a row.
    expect(states.every((state, index) => index === 0 || states[index - 1] !== state)).toBe(true);
  });

  it('an append never sent in time rejects with NOT_SENT and its key, and is never sent afterwards', async () => {
    const port = await freePort();
    const client = new HubClient({ url: wsUrl(port), reconnect: fastRetry });
    cleanup.push(() => client.close());
    const error = await client
      .append('outbox/2', user('late'), { timeoutMs: 50, idempotencyKey: 'k-late' })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      code: 'NOT_SENT',
      details: { idempotencyKey: 'k-late', timeoutMs: 50, sent: false },
    });
    expect(client.pendingAppends).toBe(0);

    const store = memoryStore();
    const node = await startNode(store, port);
    cleanup.push(
      () => store.close(),
      () => node.hub.close(),
    );
    await client.append('outbox/2', user('after'));
    const log = await store.read('outbox/2', 0, 10);
    expect(log.map((event) => (event.data as { content: string }).content)).toEqual(['after']);
  });

  it('close() rejects pending appends with CLOSED', async () => {
    const port = await freePort();
    const client = new HubClient({ url: wsUrl(port), reconnect: fastRetry });
    const pending = client.append('outbox/3', user('never'), { idempotencyKey: 'k-closed' });
    client.close();
    await expect(pending).rejects.toMatchObject({ code: 'CLOSED', details: { idempotencyKey: 'k-closed' } });
    expect(client.state).toBe('closed');
    await expect(client.append('outbox/3', user('x'))).rejects.toMatchObject({ code: 'CLOSED' });
  });
});
