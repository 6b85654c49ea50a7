import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocketServer } from 'ws';
import { HubClient } from '../../client/index.ts';
import type { HubClientError, HubClientState, SessionEvent } from '../../client/index.ts';
import { CloseCode } from '../../shared/protocol.ts';
import { memoryStore, startNode, wsUrl } from './hubs.ts';
import { TcpProxy } from './tcp-proxy.ts';
import { trackingWebSocket, untilSeq } from './support.ts';

const user = (content: string) => ({ type: 'user/message', data: { role: 'user', content } });
const fastRetry = { initialDelayMs: 20, maxDelayMs: 200 };

describe('reconnect and resume', () => {
  const cleanup: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  it('survives a hub restart: resumes from lastSeq + 1, each seq seen once, queued appends commit once', async () => {
    const store = memoryStore();
    cleanup.push(() => store.close());
    let node = await startNode(store);
    const port = node.port;
    cleanup.push(() => node.hub.close());
    const watcher = new HubClient({ url: node.wsUrl, reconnect: fastRetry });
    const writer = new HubClient({ url: node.wsUrl, reconnect: fastRetry });
    cleanup.push(
      () => watcher.close(),
      () => writer.close(),
    );
    const states: HubClientState[] = [];
    watcher.on('state', (next) => states.push(next));
    const subscription = watcher.subscribe('restart/1');
    const seen: SessionEvent[] = [];
    subscription.on('event', (event) => seen.push(event));
    await writer.append('restart/1', [user('a'), user('b')]);
    await untilSeq(subscription, 1);

    await node.hub.close(); // GOING_AWAY: clients reconnect at once and keep failing until the node is back
    const whileDown = writer.append('restart/1', user('c'));
    await vi.waitFor(() => expect(watcher.state).not.toBe('connected'));
    node = await startNode(store, port);
    await whileDown;
    await writer.append('restart/1', user('d'));
    await untilSeq(subscription, 3);
    expect(seen.map((event) => event.seq)).toEqual([0, 1, 2, 3]);
    expect(subscription.events).toEqual(await store.read('restart/1', 0, 10));
    expect(states[0]).toBe('connected'); // a new client starts in 'connecting'
    expect(states).toContain('disconnected');
    expect(states.at(-1)).toBe('connected');
  });

  it('resumes after the client side of the socket is terminated', async () => {
    const store = memoryStore();
    const node = await startNode(store);
    cleanup.push(
      () => store.close(),
      () => node.hub.close(),
    );
    const tracked = trackingWebSocket();
    const watcher = new HubClient({ url: node.wsUrl, reconnect: fastRetry, WebSocket: tracked.WebSocket });
    const writer = new HubClient({ url: node.wsUrl });
    cleanup.push(
      () => watcher.close(),
      () => writer.close(),
    );
    const subscription = watcher.subscribe('restart/2');
    await writer.append('restart/2', user('a'));
    await untilSeq(subscription, 0);
    for (const socket of tracked.open) socket.terminate();
    await writer.append('restart/2', [user('b'), user('c')]);
    await untilSeq(subscription, 2);
    expect(subscription.events.map((event) => event.seq)).toEqual([0, 1, 2]);
  });

  it('a silent (half-dead) connection is detected by the heartbeat and replaced', async () => {
    const store = memoryStore();
    const node = await startNode(store);
    const proxy = await TcpProxy.start(node.port);
    cleanup.push(
      () => store.close(),
      () => node.hub.close(),
      () => proxy.close(),
    );
    const watcher = new HubClient({
      url: wsUrl(proxy.port),
      reconnect: fastRetry,
      heartbeatIntervalMs: 50,
      heartbeatTimeoutMs: 200,
    });
    const writer = new HubClient({ url: node.wsUrl });
    cleanup.push(
      () => watcher.close(),
      () => writer.close(),
    );
    const subscription = watcher.subscribe('restart/3');
    await subscription.whenLive();
    const states: HubClientState[] = [];
    watcher.on('state', (next) => states.push(next));
    proxy.freezeAll();
    await writer.append('restart/3', user('while frozen'));
    await untilSeq(subscription, 0);
    expect(states).toContain('disconnected');
  });

  it('stops on a final close code (policy violation) with CONNECTION_REFUSED', async () => {
    const server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    let connections = 0;
    server.on('connection', (socket) => {
      connections++;
      socket.close(CloseCode.POLICY_VIOLATION, 'authentication failed');
    });
    await new Promise<void>((resolve) => server.once('listening', resolve));
    cleanup.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('unexpected address');
    const client = new HubClient({ url: wsUrl(address.port), reconnect: fastRetry });
    const errors: HubClientError[] = [];
    client.on('error', (error) => errors.push(error));
    const closed = new Promise<void>((resolve) => client.on('state', (next) => next === 'closed' && resolve()));
    await closed;
    expect(errors.map((error) => error.code)).toEqual(['CONNECTION_REFUSED']);
    expect(errors[0]!.details).toMatchObject({ closeCode: CloseCode.POLICY_VIOLATION });
    expect(connections).toBe(1);
    await expect(client.append('x/1', user('no'))).rejects.toMatchObject({ code: 'CLOSED' });
  });

  it('a URL the WebSocket cannot use closes the client at once with CONNECTION_REFUSED', async () => {
    const client = new HubClient({ url: 'http://not a url' });
    const errors: HubClientError[] = [];
    client.on('error', (error) => errors.push(error));
    await vi.waitFor(() => expect(client.state).toBe('closed'));
    expect(errors.map((error) => error.code)).toEqual(['CONNECTION_REFUSED']);
  });
});
