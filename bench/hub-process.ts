/**
 * Child-process entry of one hub node for the bench (see child/probe.ts for the IPC): a `RedisStore` on
 * BENCH_CONFIG.redisUrl (or the Redis Cluster of BENCH_CONFIG.redisCluster) and `createHub` on 127.0.0.1, a free port. Logs at LOG_LEVEL (default warn).
 * The hub is the TypeScript sources (run through tsx, like the bench) or, with BENCH_CONFIG.build `dist`, the
 * compiled package (`dist/server/index.js`, what `session-hub/server` resolves to once installed; see
 * bench/dist-build.ts).
 */
import { serveInChild } from './child/probe.ts';
import type { HubBuild } from './dist-build.ts';
import type * as ServerIndex from '../server/index.ts';

export interface HubProcessConfig {
  readonly redisUrl: string;
  readonly redisCluster?: readonly string[];
  readonly nodeName: string;
  /** Which hub to run (default `source`). */
  readonly build?: HubBuild;
  /** False: the node builds no projection snapshots (`snapshots: { enabled: false }`). Default: the hub's default policy. */
  readonly snapshots?: boolean;
}

type ServerModule = typeof ServerIndex;

const config = JSON.parse(process.env['BENCH_CONFIG'] ?? '{}') as HubProcessConfig;
const { createHub, RedisStore } =
  config.build === 'dist'
    ? ((await import(new URL('../dist/server/index.js', import.meta.url).href)) as ServerModule)
    : await import('../server/index.ts');

await serveInChild(async () => {
  const store = await RedisStore.open(
    config.redisCluster === undefined ? { url: config.redisUrl } : { cluster: config.redisCluster },
  );
  const hub = createHub({
    store,
    port: 0,
    host: '127.0.0.1',
    nodeName: config.nodeName,
    logLevel: process.env['LOG_LEVEL'] ?? 'warn',
    // The append rate limits (1,000/s per connection, 5,000/s per principal: all local clients of an open hub share
    // one address) protect a shared hub from one client; a load generator is that one client on purpose, so the
    // benchmark measures the hub, not the limiter.
    // Likewise the budget of connections before `hello` per address: the bench opens its 1,000 subscribers from
    // one address, 100 at a time.
    limits: {
      maxPendingPerAddress: 1000,
      appendsPerSecond: 10_000_000,
      appendBurst: 10_000_000,
      principalAppendsPerSecond: 10_000_000,
      principalAppendBurst: 10_000_000,
    },
    // The workload every system runs is a bare stream of `assistant/chunk` events (bench/workload.ts), not a run
    // with turns and steps: validation stays the envelope and data shape, as for the other systems.
    lifecycle: 'off',
    ...(config.snapshots === false ? { snapshots: { enabled: false } } : {}),
  });
  const address = await hub.listen();
  return {
    ports: [address.port],
    stop: async () => {
      await hub.close();
      await store.close();
    },
  };
});
