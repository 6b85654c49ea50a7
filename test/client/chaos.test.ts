import { afterAll, describe, expect } from 'vitest';
import { AgentWriter, HubClient } from '../../client/index.ts';
import type { SessionEvent, Subscription } from '../../client/index.ts';
import { deriveMessages, validateLifecycle } from '../../shared/index.ts';
import type { EventStore } from '../../server/index.ts';
import { test as it } from '../helpers/fixtures.ts';
import { wsUrl } from './hubs.ts';
import { trackingWebSocket, untilSeq } from './support.ts';
import { TcpProxy } from './tcp-proxy.ts';

const TOTAL_EVENTS = 5000;
const CHAOS_EVERY = 200; // events written between two kills

describe('chaos: connections killed at random while an agent writes 5,000 events', () => {
  // Two hub nodes on one Redis, each behind a TCP proxy that can cut its connections.
  let stores: readonly EventStore[];
  const proxies: TcpProxy[] = [];
  const clients: HubClient[] = [];

  it.beforeAll(async ({ redisHubs }) => {
    stores = redisHubs.cluster.stores;
    for (const node of redisHubs.cluster.nodes) proxies.push(await TcpProxy.start(node.port));
  });
  afterAll(async () => {
    for (const client of clients) client.close();
    for (const proxy of proxies) await proxy.close();
  });

  it('every watcher ends with the exact log: no gap, no duplicate; every append committed once', async () => {
    const sessionId = 'chaos/1';
    const tracked = trackingWebSocket();
    const options = { reconnect: { initialDelayMs: 5, maxDelayMs: 50 }, WebSocket: tracked.WebSocket };
    const connect = (index: number): HubClient => {
      const client = new HubClient({ url: wsUrl(proxies[index % 2]!.port), ...options });
      clients.push(client);
      return client;
    };
    const watchers: Subscription[] = [];
    const delivered = new Map<Subscription, number[]>();
    for (let index = 0; index < 4; index++) {
      const subscription = connect(index).subscribe(sessionId);
      const seqs: number[] = [];
      subscription.on('event', (event: SessionEvent) => seqs.push(event.seq));
      delivered.set(subscription, seqs);
      watchers.push(subscription);
    }
    const agent = connect(0);
    const writer = await AgentWriter.attach(agent, sessionId, { maxBatchEvents: 50 });

    let random = 42;
    const next = (): number => {
      random = (random * 1103515245 + 12345) % 2 ** 31;
      return random / 2 ** 31;
    };
    const kills = { client: 0, server: 0 };
    const chaos = (): void => {
      if (next() < 0.5) {
        const sockets = [...tracked.open];
        const socket = sockets[Math.floor(next() * sockets.length)];
        if (socket !== undefined) {
          socket.terminate();
          kills.client++;
        }
      } else {
        kills.server += proxies[Math.floor(next() * proxies.length)]!.cutAll() > 0 ? 1 : 0;
      }
    };

    let written = 0;
    let sinceKill = 0;
    const acked: SessionEvent[] = [];
    const write = (promise: Promise<SessionEvent>): void => {
      written++;
      if (++sinceKill >= CHAOS_EVERY) {
        sinceKill = 0;
        chaos();
      }
      void promise.then((event) => acked.push(event));
    };
    let turn = 0;
    while (written < TOTAL_EVENTS - 10) {
      turn++;
      write(writer.userMessage(`question ${turn}`));
      write(writer.startTurn());
      write(writer.startStep());
      for (let chunk = 0; chunk < 40 && written < TOTAL_EVENTS - 10; chunk++) {
        write(writer.streamChunk(`turn ${turn} chunk ${chunk}`));
      }
      write(writer.commitAssistantMessage({ content: `answer ${turn}` }));
      write(writer.endStep());
      write(writer.endTurn('completed'));
      await writer.flush();
    }
    await writer.flush();
    const lastSeq = writer.nextSeq - 1;
    await Promise.all(watchers.map((watcher) => untilSeq(watcher, lastSeq, 60_000)));

    const log = await stores[0]!.read(sessionId, 0, 100_000);
    expect(log).toHaveLength(lastSeq + 1);
    expect(log.length).toBeGreaterThanOrEqual(TOTAL_EVENTS - 10);
    expect(kills.client + kills.server).toBeGreaterThanOrEqual(10);
    expect(kills.client).toBeGreaterThan(0);
    expect(kills.server).toBeGreaterThan(0);
    // Every write was acknowledged once, with the seq it holds in the log.
    expect(acked.map((event) => event.seq)).toEqual(log.map((event) => event.seq));
    expect(acked.map((event) => event.data)).toEqual(log.map((event) => event.data));
    // Exactly once: every chunk's content appears once (a duplicated append would repeat it).
    const chunks = log.filter((event) => event.type === 'assistant/chunk').map((event) => JSON.stringify(event.data));
    expect(new Set(chunks).size).toBe(chunks.length);
    expect(validateLifecycle(log, { complete: true })).toEqual([]);
    const expectedMessages = deriveMessages(log);
    for (const watcher of watchers) {
      expect(watcher.events).toEqual(log);
      // The application saw each seq exactly once, in order.
      expect(delivered.get(watcher)).toEqual(log.map((event) => event.seq));
      expect(watcher.messages).toEqual(expectedMessages);
    }
  });

  it('pipelined appends of two writers survive killed connections: each once, each writer in call order', async () => {
    const sessionId = 'chaos/pipelined';
    const tracked = trackingWebSocket();
    const options = { reconnect: { initialDelayMs: 5, maxDelayMs: 50 }, WebSocket: tracked.WebSocket };
    const writers = [0, 1].map((index) => {
      const client = new HubClient({ url: wsUrl(proxies[index]!.port), ...options });
      clients.push(client);
      return client;
    });
    const perWriter = 1500;
    const wave = 150;
    let kills = 0;
    const appends: Promise<SessionEvent>[][] = writers.map(() => []);
    for (let first = 0; first < perWriter; first += wave) {
      for (const [w, client] of writers.entries()) {
        for (let n = first; n < first + wave; n++) {
          appends[w]!.push(client.append(sessionId, { type: 'test/p', data: { w, n } }).then(([event]) => event!));
        }
      }
      // Let the wave reach the wire, then cut every socket (client side, then the proxies) under it.
      await new Promise((resolve) => setImmediate(resolve));
      for (const socket of [...tracked.open]) {
        socket.terminate();
        kills++;
      }
      for (const proxy of proxies) kills += proxy.cutAll();
      // Keep the outboxes bounded: wait for the wave before this one.
      if (first >= wave) await Promise.all(appends.map((list) => Promise.all(list.slice(first - wave, first))));
    }
    const acked = await Promise.all(appends.map((list) => Promise.all(list)));
    const log = await stores[0]!.read(sessionId, 0, 100_000);
    expect(kills).toBeGreaterThanOrEqual(5); // sockets actually cut while appends were in flight
    expect(log).toHaveLength(2 * perWriter);
    expect(log.map((event) => event.seq)).toEqual(Array.from({ length: 2 * perWriter }, (_, seq) => seq));
    for (const [w, events] of acked.entries()) {
      // Each ack names the event the log holds at that seq, and each writer's appends are in call order.
      expect(events.map((event) => log[event.seq]!.data)).toEqual(events.map((_, n) => ({ w, n })));
      const seqs = events.map((event) => event.seq);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    }
  });
});
