import { ServerProcess } from './child/spawn.ts';
import { catchUpSession, HubRawConnection, hubRawSystem } from './clients/hub-raw.ts';
import type { BenchAppender, BenchContext, HubTarget } from './targets.ts';
import { benchBatch } from './workload.ts';

let started = 0;

/** The part of the SDK's `HubClient` the append scenario uses. */
interface SdkClient {
  readonly state: string;
  on(event: 'state', listener: (next: string) => void): unknown;
  append(sessionId: string, drafts: readonly unknown[]): Promise<unknown>;
  close(): void;
}
type SdkClientConstructor = new (options: { url: string; outboxLimit?: number }) => SdkClient;

/** The SDK's `HubClient`, or undefined when client/ has no SDK yet. */
async function loadHubClient(): Promise<SdkClientConstructor | undefined> {
  const specifier = '../client/index.ts';
  const loaded = (await import(specifier)) as { HubClient?: SdkClientConstructor };
  return loaded.HubClient;
}

/** An SDK connection (`HubClient`) appending bench events, resolved once connected. */
async function sdkAppender(HubClient: SdkClientConstructor, port: number): Promise<BenchAppender> {
  const client = new HubClient({ url: `ws://127.0.0.1:${port}/v1/ws`, outboxLimit: 100_000 });
  await new Promise<void>((resolve, reject) => {
    if (client.state === 'connected') return resolve();
    client.on('state', (next) => {
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

/** A raw-protocol appender (when the SDK is not available). */
async function rawAppender(port: number): Promise<BenchAppender> {
  const connection = await HubRawConnection.connect(port);
  return {
    append: (sessionId, firstIndex, size, sentAtMs) =>
      connection.append(sessionId, benchBatch(firstIndex, size, sentAtMs)),
    close: () => connection.close(),
  };
}

/** The hub: each node a child process (`hub-process.ts`) on the bench Redis. */
export async function hubTarget(context: BenchContext, log: (line: string) => void): Promise<HubTarget> {
  const HubClient = await loadHubClient();
  if (HubClient === undefined) log('client/ has no HubClient yet: the append scenario uses the raw protocol');
  return {
    system: hubRawSystem,
    appenderKind: HubClient === undefined ? 'raw' : 'SDK',
    start: (nodes, options) =>
      Promise.all(
        Array.from({ length: nodes }, (_, node) => {
          const name = `hub-${node}-${++started}`;
          return ServerProcess.start({
            entry: 'hub-process.ts',
            config: { redisUrl: context.redisUrl, nodeName: name },
            exposeGc: options?.exposeGc === true,
            name,
            ...(context.cpuProfileDir === undefined ? {} : { cpuProfileDir: context.cpuProfileDir }),
          });
        }),
      ),
    appender: (port) => (HubClient === undefined ? rawAppender(port) : sdkAppender(HubClient, port)),
    catchUp: catchUpSession,
  };
}
