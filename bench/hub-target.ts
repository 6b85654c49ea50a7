import { HubClient, type HubClientState } from '../client/index.ts';
import { ServerProcess } from './child/spawn.ts';
import type { HubBuild } from './dist-build.ts';
import { catchUpSession, HubRawConnection, hubRawSystem } from './clients/hub-raw.ts';
import type { BenchAppender, BenchContext, HubTarget } from './targets.ts';
import { benchBatch } from './workload.ts';

let started = 0;

/** An SDK connection (`HubClient`) appending bench events, resolved once connected. */
async function sdkAppender(port: number): Promise<BenchAppender> {
  const client = new HubClient({ url: `ws://127.0.0.1:${port}/v1/ws`, outboxLimit: 100_000 });
  await new Promise<void>((resolve, reject) => {
    if (client.state === 'connected') return resolve();
    client.on('state', (next: HubClientState) => {
      if (next === 'connected') resolve();
      else if (next === 'closed') reject(new Error('HubClient closed before connecting'));
    });
  });
  return {
    async append(sessionId, firstIndex, size, sentAtMs) {
      await client.append(sessionId, benchBatch(firstIndex, size, sentAtMs));
    },
    close: () => client.close(),
  };
}

/** A raw-protocol appender (`ws` + codec): the hub's cost without the SDK's. */
async function rawAppender(port: number): Promise<BenchAppender> {
  const connection = await HubRawConnection.connect(port);
  return {
    append: (sessionId, firstIndex, size, sentAtMs) =>
      connection.append(sessionId, benchBatch(firstIndex, size, sentAtMs)),
    close: () => connection.close(),
  };
}

/**
 * The hub: each node a child process (`hub-process.ts`) on the bench Redis (or the context's Redis Cluster), from
 * the TypeScript sources or (`build: 'dist'`) the compiled package (see bench/dist-build.ts).
 */
export function hubTarget(
  context: BenchContext,
  build: HubBuild = 'source',
  policy: { readonly snapshots?: boolean } = {},
): HubTarget {
  return {
    system: hubRawSystem,
    start: (nodes, options) =>
      Promise.all(
        Array.from({ length: nodes }, (_, node) => {
          const name = `hub${build === 'dist' ? '-dist' : ''}-${node}-${++started}`;
          return ServerProcess.start({
            entry: 'hub-process.ts',
            config: {
              redisUrl: context.redisUrl,
              nodeName: name,
              ...(build === 'dist' ? { build } : {}),
              ...(policy.snapshots === false ? { snapshots: false } : {}),
              ...(context.redisCluster === undefined ? {} : { redisCluster: context.redisCluster }),
            },
            exposeGc: options?.exposeGc === true,
            name,
            ...(context.cpuProfileDir === undefined ? {} : { cpuProfileDir: context.cpuProfileDir }),
          });
        }),
      ),
    appender: (port, client) => (client === 'SDK' ? sdkAppender(port) : rawAppender(port)),
    catchUp: catchUpSession,
  };
}
