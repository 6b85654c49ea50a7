import { randomUUID } from 'node:crypto';
import type { EventStore } from '../../server/store/event-store.ts';
import { MemoryBackend } from '../../server/store/memory/memory-backend.ts';
import { MemoryStore } from '../../server/store/memory/memory-store.ts';
import { RedisStore } from '../../server/store/redis/redis-store.ts';
import { test } from '../helpers/fixtures.ts';
import { RedisCluster } from '../helpers/redis-cluster.ts';

/** A backend under test: `open()` gives a new store instance on it (another "hub node"), closed after the file. */
export interface ConformanceBackend {
  open(): Promise<EventStore>;
}

/**
 * The backends of the conformance suite, one extension of test/helpers/fixtures.ts each: the `backend` fixture starts
 * what the engine runs on the first time the suite names it and stops it after the file's last test.
 */
// eslint-disable-next-line no-empty-pattern -- vitest reads what a fixture depends on from this pattern: nothing
export const memoryBackend = test.extend('backend', { scope: 'file' }, ({}, { onCleanup }): ConformanceBackend => {
  const shared = new MemoryBackend();
  const stores: MemoryStore[] = [];
  onCleanup(async () => {
    await Promise.all(stores.map((store) => store.close()));
  });
  return {
    open: async () => {
      const store = new MemoryStore({ backend: shared });
      stores.push(store);
      return store;
    },
  };
});
export const redisBackend = test.extend('backend', { scope: 'file' }, ({ openRedisStore }): ConformanceBackend => {
  const keyPrefix = `conf-${randomUUID().slice(0, 8)}:`;
  return { open: () => openRedisStore({ keyPrefix }) };
});
export const clusterBackend = test.extend(
  'backend',
  { scope: 'file' },
  // eslint-disable-next-line no-empty-pattern -- vitest reads what a fixture depends on from this pattern: nothing
  async ({}, { onCleanup }): Promise<ConformanceBackend> => {
    const cluster = await RedisCluster.start();
    const keyPrefix = `conf-${randomUUID().slice(0, 8)}:`;
    const stores: RedisStore[] = [];
    onCleanup(async () => {
      await Promise.all(stores.map((store) => store.close()));
      await cluster.stop();
    });
    return {
      open: async () => {
        const store = await RedisStore.open({ cluster: cluster.urls, keyPrefix });
        stores.push(store);
        return store;
      },
    };
  },
);

/** The fixtures of test/helpers/fixtures.ts and `backend`, the engine under test. */
export type BackendTest = typeof memoryBackend;
