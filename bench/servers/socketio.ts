import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { createAdapter } from '@socket.io/redis-streams-adapter';
import { Redis } from 'ioredis';
import { Server } from 'socket.io';
import type { ChildServer } from '../child/probe.ts';

/** What a Socket.IO publisher emits as `append` (the same drafts the hub gets). */
export interface SocketIoAppend {
  readonly sessionId: string;
  readonly events: readonly { readonly type: string; readonly data: unknown }[];
}

/**
 * The peer: Socket.IO 4 with `@socket.io/redis-streams-adapter` on the bench's Redis, doing the hub's job in the
 * simplest way Socket.IO allows. `join(room)` subscribes a socket to a session's room; `append(batch, ack)` stamps
 * seq and time on the events and broadcasts them to the room (through the adapter's Redis stream, so other
 * nodes deliver too), then acks.
 */
export async function startSocketIo(redisUrl: string, host = '127.0.0.1'): Promise<ChildServer> {
  // The adapter's own connections are duplicates of this one and carry its name (see untilAdapterReads).
  const connectionName = `bench-socketio-${randomBytes(6).toString('hex')}`;
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: null, connectionName });
  const http = createServer();
  const io = new Server(http, {
    transports: ['websocket'],
    perMessageDeflate: false,
    serveClient: false,
    adapter: createAdapter(redis),
  });
  const nextSeq = new Map<string, number>();
  io.on('connection', (socket) => {
    socket.on('join', (room: string, ack?: () => void) => {
      void socket.join(room);
      ack?.();
    });
    socket.on('append', (batch: SocketIoAppend, ack?: (reply: { firstSeq: number }) => void) => {
      const firstSeq = nextSeq.get(batch.sessionId) ?? 0;
      nextSeq.set(batch.sessionId, firstSeq + batch.events.length);
      const time = Date.now();
      const events = batch.events.map((draft, index) => ({ seq: firstSeq + index, time, ...draft }));
      io.to(batch.sessionId).emit('events', { sessionId: batch.sessionId, events });
      ack?.({ firstSeq });
    });
  });
  await new Promise<void>((resolve) => http.listen(0, host, resolve));
  await untilAdapterReads(redis, connectionName);
  return {
    ports: [(http.address() as AddressInfo).port],
    stop: async () => {
      io.disconnectSockets(true);
      await io.close();
      redis.disconnect();
    },
  };
}

/**
 * Wait until this node's adapter is blocked in its first `XREAD` of the stream. The adapter connects its reading
 * client and starts at `$` (only what is added afterwards) on its own time after `createAdapter` returns, so a node
 * that reported ready earlier would miss what the other node broadcast meanwhile, and a test waiting for those
 * deliveries would wait forever (seen: a 30 s timeout once in six runs of the two-node smoke test).
 */
async function untilAdapterReads(redis: Redis, connectionName: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const clients = String(await redis.client('LIST')).split('\n');
    if (clients.some((line) => line.includes(` name=${connectionName} `) && line.includes(' cmd=xread'))) return;
    if (Date.now() > deadline) throw new Error(`socket.io adapter: no XREAD after ${timeoutMs} ms`);
    await delay(5);
  }
}
