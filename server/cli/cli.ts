import { authStartupNotice } from '../auth/auth-config.ts';
import { createHubAuth } from '../auth/hub-auth.ts';
import { loadAuthenticator } from '../auth/load-authenticator.ts';
import type { Authenticator } from '../auth/authenticator.ts';
import { defaultNodeName } from '../config.ts';
import { createHub, type HubAddress } from '../hub.ts';
import { parseServeArgs, serveUsage, UsageError, type ServeOptions } from './cli-args.ts';
import { createLogger, type Logger } from '../logger.ts';
import { redactError, redactSecrets, redactUrl, redisUrlProblem } from './redact-url.ts';
import { createMetricsServer } from '../http/metrics-server.ts';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { HubMetrics } from '../metrics.ts';
import { MemoryStore } from '../store/memory/memory-store.ts';
import { RedisStore, type RedisStoreOptions } from '../store/redis/redis-store.ts';
import type { EventStore } from '../store/event-store.ts';

const usage = `Usage: session-hub <command> [options]

Commands:
  serve     start a hub node (see: session-hub serve --help)
`;

/** `session-hub` command line. Resolves with the exit code once the command is done. */
export async function main(argv: readonly string[]): Promise<number> {
  const [command = 'serve', ...rest] = argv;
  if (command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(usage);
    return 0;
  }
  if (command !== 'serve') {
    process.stderr.write(`session-hub: unknown command ${command}\n\n${usage}`);
    return 2;
  }
  let options: ServeOptions | 'help';
  try {
    options = parseServeArgs(rest, process.env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`session-hub: ${error.message}\n\n${serveUsage}`);
    return 2;
  }
  if (options === 'help') {
    process.stdout.write(serveUsage);
    return 0;
  }
  return serve(options);
}

/** Where the Redis engine connects, as `RedisStore` options; undefined → the memory engine. */
function redisTarget(options: ServeOptions): RedisStoreOptions | undefined {
  if (options.redisCluster !== undefined) return { cluster: options.redisCluster };
  if (options.redisSentinels !== undefined) {
    return { sentinels: options.redisSentinels, sentinelName: options.redisSentinelName ?? '' };
  }
  return options.redisUrl === undefined ? undefined : { url: options.redisUrl };
}

/** The Redis URL whose password must never be shown (a cluster's nodes share their seeds' password). */
function secretBearingUrl(options: ServeOptions): string {
  return options.redisUrl ?? options.redisCluster?.[0] ?? '';
}

/** The Redis the node uses, passwords masked, for the startup line and logs. */
function describeRedis(options: ServeOptions): string {
  if (options.redisCluster !== undefined) return `cluster ${options.redisCluster.map(redactUrl).join(',')}`;
  if (options.redisSentinels !== undefined) {
    return `sentinel ${options.redisSentinelName ?? ''} via ${options.redisSentinels.join(',')}`;
  }
  return redactUrl(options.redisUrl ?? '');
}

async function openStore(options: ServeOptions, logger: Logger): Promise<EventStore> {
  const redisUrl = secretBearingUrl(options);
  const onError = (error: Error): void => logger.warn({ err: redactError(error, redisUrl) }, 'store trouble');
  const target = redisTarget(options);
  if (target === undefined) return new MemoryStore({ onError });
  return RedisStore.open({
    ...target,
    onError,
    ...(options.keyPrefix === undefined ? {} : { keyPrefix: options.keyPrefix }),
    ...(options.redisWaitReplicas === undefined ? {} : { waitReplicas: options.redisWaitReplicas }),
  });
}

const listenErrors: Readonly<Record<string, string>> = {
  EADDRINUSE: 'address already in use',
  EADDRNOTAVAIL: 'address not available on this machine',
  EACCES: 'permission denied',
  ENOTFOUND: 'unknown host',
};

const LOOPBACK_BINDS: ReadonlySet<string> = new Set(['127.0.0.1', 'localhost', '::1']);

/** Start the token-less `/metrics` listener of `--metrics-port`. */
function listenMetrics(metrics: HubMetrics, host: string, port: number): Promise<Server> {
  const server = createMetricsServer(metrics);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

function serverUrl(server: Server): string {
  const { address, port } = server.address() as AddressInfo;
  return `http://${address.includes(':') ? `[${address}]` : address}:${port}`;
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** One line saying why the node could not listen, e.g. `cannot listen on 127.0.0.1:8080: address already in use`. */
function listenFailure(options: { readonly host: string; readonly port: number }, error: unknown): string {
  const code = error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : '';
  const reason = listenErrors[code] ?? (error instanceof Error ? error.message : String(error));
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return `cannot listen on ${host}:${options.port}: ${reason}`;
}

async function serve(options: ServeOptions): Promise<number> {
  // Named here, not by the hub, so that every log line of the node carries it, the CLI's own among them.
  const nodeName = options.nodeName ?? defaultNodeName();
  const logger = createLogger(options.logLevel, { node: nodeName });
  let authenticator: Authenticator;
  try {
    authenticator = await loadAuthenticator(options.auth);
  } catch (error) {
    logger.fatal({ err: error }, 'could not load the auth key');
    process.stderr.write(`session-hub: could not load the auth key: ${String(error)}\n`);
    return 1;
  }
  let store: EventStore;
  const redisUrl = secretBearingUrl(options);
  const badUrl = options.redisUrl === undefined ? undefined : redisUrlProblem(options.redisUrl);
  if (badUrl !== undefined) {
    logger.fatal({ redis: redactUrl(redisUrl) }, badUrl);
    process.stderr.write(`session-hub: could not open the store: ${badUrl}\n`);
    return 1;
  }
  try {
    store = await openStore(options, logger);
  } catch (error) {
    const redis = redisTarget(options) === undefined ? undefined : describeRedis(options);
    // Never the error itself: its properties (a URL TypeError's `input`) and causes may hold the password.
    logger.fatal({ err: redactError(error, redisUrl), redis }, 'could not open the store');
    process.stderr.write(`session-hub: could not open the store: ${redactSecrets(String(error), redisUrl)}\n`);
    return 1;
  }
  const hub = createHub({
    store,
    port: options.port,
    host: options.host,
    logger,
    auth: createHubAuth(authenticator),
    nodeName,
    lifecycle: options.lifecycle,
    ...(options.allowedOrigins === undefined ? {} : { allowedOrigins: options.allowedOrigins }),
    ...(options.allowedHosts === undefined ? {} : { allowedHosts: options.allowedHosts }),
    limits: options.limits,
    inspector: options.inspector,
    ...(options.presenceTtlMs === undefined ? {} : { presenceTtlMs: options.presenceTtlMs }),
  });
  let address: HubAddress;
  let metricsServer: Server | undefined;
  let listeningOn: { readonly host: string; readonly port: number } = options;
  try {
    address = await hub.listen();
    if (options.metricsPort !== undefined) {
      listeningOn = { host: options.metricsHost, port: options.metricsPort };
      metricsServer = await listenMetrics(hub.metrics, listeningOn.host, listeningOn.port);
    }
  } catch (error) {
    logger.fatal({ err: error }, 'could not listen');
    process.stderr.write(`session-hub: ${listenFailure(listeningOn, error)}\n`);
    await hub.close();
    await store.close();
    return 1;
  }
  const engine =
    store.engine === 'memory'
      ? 'memory (embedded: one process only, NOTHING IS PERSISTED; use --redis for durable, multi-node logs)'
      : `redis (${describeRedis(options)})`;
  process.stdout.write(`session-hub listening on ${address.url} (WebSocket ${address.wsUrl})\nengine: ${engine}\n`);
  if (metricsServer !== undefined) {
    process.stdout.write(`metrics: ${serverUrl(metricsServer)}/metrics (no token)\n`);
  }
  if (store.engine === 'memory') logger.warn('memory engine: one process only, nothing is persisted');
  if (options.auth.mode === 'open' && options.allowedHosts === undefined && !LOOPBACK_BINDS.has(options.host)) {
    const hint =
      `this open hub listens on ${options.host} but answers only requests addressed to localhost, 127.0.0.1 or ` +
      '[::1] (DNS-rebinding defence): list the names clients use with --allowed-hosts';
    logger.warn(hint);
    process.stdout.write(`hosts: ${hint}\n`);
  }
  const authNotice = authStartupNotice(options.auth);
  logger[authNotice.level](authNotice.message);
  process.stdout.write(
    `auth: ${options.auth.mode === 'open' ? `*** ${authNotice.message} ***` : authNotice.message}\n`,
  );

  await new Promise<void>((resolve) => {
    const stop = (signal: NodeJS.Signals): void => {
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
      logger.info({ signal }, 'shutting down');
      resolve();
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  });
  await hub.close();
  if (metricsServer !== undefined) await closeServer(metricsServer);
  await store.close();
  process.stdout.write('session-hub stopped\n');
  return 0;
}
