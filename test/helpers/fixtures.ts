// The one fixture mechanism of the suites: vitest's `test.extend` with file-scoped fixtures. A fixture starts the
// first time a test (or a suite hook) of the file names it, and stops after the file's last test: one redis-server
// per file, as many hub nodes as the file asks for. A file that wants more than one store or node on its Redis, each
// set up its own way, asks for the factories `openRedisStore` and `startRedisHub`.
//
//   import { test } from '../helpers/fixtures.ts';
//   test('reads back', async ({ redisStore }) => { ... });
//
// Options are fixtures too (`hubConfig`, `clientOptions`, `keyPrefix`, `hubCount`, `redisOptions`, `redisStoreOptions`,
// `engine`). A file-scoped fixture cannot be overridden inside a describe block, so a block with its own options uses
// its own extension, which gets its own instances of what depends on the option (and shares the rest, e.g. the
// redis-server):
//
//   const limited = test.extend('hubConfig', { scope: 'file' }, { limits: { maxSubscriptionsPerNode: 3 } });
//   limited('refuses the fourth', async ({ memoryHub }) => { ... });
import { Redis } from 'ioredis';
import { test as base } from 'vitest';
import { HubClient, type HubClientOptions } from '../../client/index.ts';
import type { HubConfig } from '../../server/config.ts';
import type { EventStore } from '../../server/store/event-store.ts';
import { MemoryStore } from '../../server/store/memory/memory-store.ts';
import { RedisStore, type RedisStoreOptions } from '../../server/store/redis/redis-store.ts';
import { storeEngines, type Engine } from './engines.ts';
import { startHub, startRedisHubs, type RedisHubCluster, type TestHub } from './hub.ts';
import { takeIncidents } from './process-incidents.ts';
import { RedisServer, type RedisServerOptions } from './redis-server.ts';

/** A hub node on its own memory store. */
export interface MemoryHubFixture {
  readonly store: MemoryStore;
  readonly hub: TestHub;
}

/** A hub node on its own memory store, and one `HubClient` connected to it. */
export interface MemoryHubClientFixture {
  readonly store: MemoryStore;
  readonly node: TestHub;
  readonly client: HubClient;
}

/** `hubCount` hub nodes on the file's redis-server, and a plain connection to that Redis. */
export interface RedisHubsFixture {
  readonly redis: RedisServer;
  readonly cluster: RedisHubCluster;
  /** A plain connection to the same Redis, for a test to act as an operator or a failure would. */
  readonly admin: Redis;
}

/** A hub node on a store engine (memory, or Redis on its own redis-server: see engines.ts). */
export interface EngineHubFixture {
  readonly store: EventStore;
  readonly hub: TestHub;
}

/** Which engine `engineHub` runs on: a row of `storeEngines()`. */
export interface EngineChoice {
  readonly name: string;
  readonly open: () => Promise<Engine>;
}

/** Hub config of `memoryHub`, `memoryHubClient` and `redisHubs` (the store comes from the fixture). */
export type HubOptions = Omit<HubConfig, 'store'>;

/** What the stores opened on the file's Redis take besides where it is and `keyPrefix` (e.g. `onError`). */
export type RedisStoreFixtureOptions = Omit<RedisStoreOptions, 'url' | 'cluster' | 'sentinels' | 'sentinelName'>;

/**
 * Opens one more `RedisStore` on the file's Redis (keys under `keyPrefix`, `redisStoreOptions`; `options` over
 * both, e.g. another `keyPrefix` or a `url` with a user); it closes after the file's last test.
 */
export type OpenRedisStore = (options?: RedisStoreOptions) => Promise<RedisStore>;

/** A hub node on a `RedisStore` of its own. */
export interface RedisHubNode {
  readonly store: RedisStore;
  readonly node: TestHub;
}

/**
 * Starts one more hub node on the file's Redis, on a store of its own (as `openRedisStore` opens it), with
 * `config` over `hubConfig`; node and store stop after the file's last test.
 */
export type StartRedisHub = (config?: HubOptions) => Promise<RedisHubNode>;

const file = { scope: 'file' } as const;

export const test = base
  // The process guard (test/setup/process-guard.ts) checks after each test and each suite, but file-scoped
  // fixtures stop after the last afterAll: this one is set up first, so it is torn down last and fails the file
  // if an unhandled rejection, an uncaught exception or a child crash happened while the others stopped.
  // eslint-disable-next-line no-empty-pattern -- vitest reads what a fixture depends on from this pattern: nothing
  .extend('teardownGuard', { scope: 'file', auto: true }, async ({}, { onCleanup }) => {
    onCleanup(async () => {
      await new Promise((resolve) => setImmediate(resolve));
      const found = takeIncidents();
      if (found.length > 0) {
        throw new Error(
          `process guard: ${found.length} incident(s) while the file's fixtures stopped:\n${found.join('\n---\n')}`,
        );
      }
    });
    return true;
  })
  // Options: values a file (or a describe block's own extension) replaces.
  .extend('hubConfig', file, {} as HubOptions)
  .extend('clientOptions', file, {} as Omit<HubClientOptions, 'url'>)
  .extend('keyPrefix', file, 'test:' as string)
  .extend('hubCount', file, 2 as number)
  .extend('redisOptions', file, {} as RedisServerOptions)
  .extend('redisStoreOptions', file, {} as RedisStoreFixtureOptions)
  .extend('engine', file, storeEngines('test:')[0]! as EngineChoice)
  // The file's redis-server on a free port.
  .extend('redis', file, async ({ redisOptions }, { onCleanup }) => {
    const redis = await RedisServer.start(redisOptions);
    onCleanup(() => redis.stop());
    return redis;
  })
  // A plain connection to it.
  .extend('admin', file, async ({ redis }, { onCleanup }) => {
    const admin = new Redis(redis.url);
    onCleanup(() => admin.disconnect());
    return admin;
  })
  // More stores on it, each opened when a test asks for it.
  .extend('openRedisStore', file, ({ redis, keyPrefix, redisStoreOptions }, { onCleanup }): OpenRedisStore => {
    const opened: RedisStore[] = [];
    onCleanup(async () => {
      await Promise.all(opened.map((store) => store.close()));
    });
    return async (options = {}) => {
      const store = await RedisStore.open({ url: redis.url, keyPrefix, ...redisStoreOptions, ...options });
      opened.push(store);
      return store;
    };
  })
  // A `RedisStore` on it, keys under `keyPrefix`.
  .extend('redisStore', file, ({ openRedisStore }) => openRedisStore())
  // One hub node on `redisStore`.
  .extend('redisHub', file, async ({ redisStore, hubConfig }, { onCleanup }) => {
    const hub = await startHub({ ...hubConfig, store: redisStore });
    onCleanup(() => hub.close());
    return hub;
  })
  // More hub nodes on it, each on a store of its own, started when a test asks for one.
  .extend('startRedisHub', file, ({ openRedisStore, hubConfig }, { onCleanup }): StartRedisHub => {
    const started: TestHub[] = [];
    onCleanup(async () => {
      await Promise.all(started.map((node) => node.close()));
    });
    return async (config = {}) => {
      const store = await openRedisStore();
      const node = await startHub({ ...hubConfig, ...config, store });
      started.push(node);
      return { store, node };
    };
  })
  .extend('redisHubs', file, async ({ redis, admin, keyPrefix, hubCount, hubConfig }, { onCleanup }) => {
    const cluster = await startRedisHubs(redis.url, { count: hubCount, keyPrefix, config: hubConfig });
    onCleanup(() => cluster.close());
    return { redis, cluster, admin } satisfies RedisHubsFixture;
  })
  .extend('memoryHub', file, async ({ hubConfig }, { onCleanup }) => {
    const store = new MemoryStore();
    const hub = await startHub({ ...hubConfig, store });
    onCleanup(async () => {
      await hub.close();
      await store.close();
    });
    return { store, hub } satisfies MemoryHubFixture;
  })
  // The store of `engine` (memory, or Redis on its own redis-server).
  .extend('engineStore', file, async ({ engine }, { onCleanup }): Promise<EventStore> => {
    const opened = await engine.open();
    onCleanup(async () => {
      await opened.store.close();
      await opened.stop();
    });
    return opened.store;
  })
  // One hub node on `engineStore`.
  .extend('engineHub', file, async ({ engineStore, hubConfig }, { onCleanup }) => {
    const hub = await startHub({ ...hubConfig, store: engineStore });
    onCleanup(() => hub.close());
    return { store: engineStore, hub } satisfies EngineHubFixture;
  })
  .extend('memoryHubClient', file, async ({ hubConfig, clientOptions }, { onCleanup }) => {
    const store = new MemoryStore();
    const node = await startHub({ ...hubConfig, store });
    const client = new HubClient({ ...clientOptions, url: node.wsUrl });
    onCleanup(async () => {
      client.close();
      await node.close();
      await store.close();
    });
    return { store, node, client } satisfies MemoryHubClientFixture;
  });

export const it = test;
