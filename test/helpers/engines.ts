import type { EventStore } from '../../server/store/event-store.ts';
import { MemoryBackend } from '../../server/store/memory/memory-backend.ts';
import { MemoryStore } from '../../server/store/memory/memory-store.ts';
import { RedisStore } from '../../server/store/redis/redis-store.ts';
import { RedisServer } from './redis-server.ts';

/** A store engine for a suite: the store, and how to stop what it runs on (its own redis-server). */
export interface Engine {
  readonly store: EventStore;
  /** Another store on the same backend (another hub node's); the caller closes it. */
  another?(): Promise<EventStore>;
  stop(): Promise<void>;
}

/** Both engines, for `describe.each`: a memory store, and a Redis store on its own redis-server (keys under `keyPrefix`). */
export function storeEngines(keyPrefix: string): { readonly name: string; readonly open: () => Promise<Engine> }[] {
  return [
    {
      name: 'memory',
      open: async () => {
        const backend = new MemoryBackend();
        return {
          store: new MemoryStore({ backend }),
          another: async () => new MemoryStore({ backend }),
          stop: async () => {},
        };
      },
    },
    {
      name: 'redis',
      open: async () => {
        const redis = await RedisServer.start();
        const store = await RedisStore.open({ url: redis.url, keyPrefix });
        return { store, another: () => RedisStore.open({ url: redis.url, keyPrefix }), stop: () => redis.stop() };
      },
    },
  ];
}
