import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { WebSocket } from 'ws';
import type { ChildServer } from '../child/probe.ts';
import { RELAY_ACK, startRelayServer } from './relay-server.ts';

const STREAM_KEY = 'bench:xadd-relay:log';
const CHANNEL = 'bench:xadd-relay:events';

/**
 * The physical floor of the hub's design, one process per node: the raw `ws` relay (same clients, same frames),
 * except that each published frame is first stored with `XADD` on the bench's Redis and published (one pipelined
 * round trip, `XADD` then `PUBLISH`), then forwarded to this node's subscribers and acked; the other nodes forward
 * it when the publication reaches them. No validation, no seq, no idempotency: only the storage and the cross-node
 * hop every durable multi-node design pays.
 */
export async function startXaddRelay(redisUrl: string, host = '127.0.0.1'): Promise<ChildServer> {
  // The same pipelining setting as the hub's store on one Redis (none): the floor pays what the hub pays per command.
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const subscriber = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const nodeId = randomBytes(8);
  const subscribers = new Set<WebSocket>();
  const forward = (frame: Buffer): void => {
    for (const socket of subscribers) socket.send(frame, { binary: true });
  };
  await subscriber.subscribe(CHANNEL);
  subscriber.on('messageBuffer', (_channel: Buffer, message: Buffer) => {
    if (message.subarray(0, nodeId.length).equals(nodeId)) return; // this node forwarded it already
    forward(message.subarray(nodeId.length));
  });
  return startRelayServer(
    host,
    subscribers,
    (socket) => {
      socket.on('message', (frame: Buffer) => {
        Promise.all([
          redis.xadd(STREAM_KEY, 'MAXLEN', '~', '100000', '*', 'e', frame),
          redis.publish(CHANNEL, Buffer.concat([nodeId, frame])),
        ]).then(
          () => {
            forward(frame);
            socket.send(RELAY_ACK, { binary: true });
          },
          () => socket.close(1011),
        );
      });
    },
    () => {
      subscriber.disconnect();
      redis.disconnect();
    },
  );
}
