// Real hub nodes for the SDK tests (thin wrapper over test/helpers once available).
import { createHub, MemoryStore, RedisStore } from '../../server/index.ts';
import type { EventStore, Hub } from '../../server/index.ts';

export interface Node {
  readonly hub: Hub;
  readonly port: number;
  readonly wsUrl: string;
}

/** Start a hub node on `store` (port 0 = a free one). */
export async function startNode(store: EventStore, port = 0): Promise<Node> {
  const hub = createHub({ store, port, host: '127.0.0.1', logLevel: 'silent' });
  const address = await hub.listen();
  return { hub, port: address.port, wsUrl: address.wsUrl };
}

export function memoryStore(): EventStore {
  return new MemoryStore();
}

export async function redisStore(url: string): Promise<EventStore> {
  return new RedisStore({ url });
}

export function wsUrl(port: number): string {
  return `ws://127.0.0.1:${port}/v1/ws`;
}
