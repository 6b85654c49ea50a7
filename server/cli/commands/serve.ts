import { authStartupNotice } from '../../auth/auth-config.ts';
import { createHubAuth } from '../../auth/hub-auth.ts';
import { loadAuthenticator } from '../../auth/load-authenticator.ts';
import type { Authenticator } from '../../auth/authenticator.ts';
import { defaultNodeName } from '../../config.ts';
import { createHub, type HubAddress } from '../../hub.ts';
import { parseServeArgs, serveUsage, type ServeOptions } from '../cli-args.ts';
import { createLogger, type Logger } from '../../logger.ts';
import { redactError, redactSecrets, redactUrl, redisUrlProblem } from '../redact-url.ts';
import { createMetricsServer } from '../../http/metrics-server.ts';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { HubMetrics } from '../../metrics.ts';
import { MemoryStore } from '../../store/memory/memory-store.ts';
import { RedisStore, type RedisStoreOptions } from '../../store/redis/redis-store.ts';
import type { EventStore } from '../../store/event-store.ts';
import type { Command } from '../command.ts';
import { hubEnv } from '../env.ts';
import type { ArchiveBackend } from '../../archive/archive-backend.ts';
import { describeArchiveLocation, openServeArchive, startServeArchive } from '../serve-archive.ts';

export const serveCommand: Command = {
  name: 'serve',
  summary: 'start a hub node',
  usage: serveUsage,
  async run(args, io) {
    const options = parseServeArgs(args, hubEnv(io.env));
    if (options === 'help') {
      io.stdout.write(serveUsage);
      return 0;
    }
    return serve(options);
  },
};

/** Where the Redis engine connects, as `RedisStore` options; undefined → the memory engine. */
function redisTarget(options: ServeOptions): RedisStoreOptions | undefined {
  if (options.redisCluster !== undefined) return { cluster: options.redisCluster };
  if (options.redisSentinels !== undefined) {
    const { redisSentinelPassword: sentinelPassword, redisMasterPassword: masterPassword } = options;
    return {
      sentinels: options.redisSentinels,
      sentinelName: options.redisSentinelName ?? '',
      ...(sentinelPassword === undefined ? {} : { sentinelAuth: { password: sentinelPassword } }),
      ...(masterPassword === undefined ? {} : { masterAuth: { password: masterPassword } }),
    };
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

/**
 * Open the store. While it opens, its connection errors are kept rather than logged: a store that cannot open is
 * reported in one line that names the last of them (`... not ready after 3000 ms: connect ECONNREFUSED ...`).
 */
async function openStore(options: ServeOptions, logger: Logger): Promise<EventStore> {
  const redisUrl = secretBearingUrl(options);
  let opening = true;
  let lastError: Error | undefined;
  const onError = (error: Error): void => {
    if (opening) lastError = error;
    else logger.warn({ err: redactError(error, redisUrl) }, 'store trouble');
  };
  const target = redisTarget(options);
  if (target === undefined) return new MemoryStore({ onError });
  try {
    return await RedisStore.open({
      ...target,
      onError,
      ...(options.keyPrefix === undefined ? {} : { keyPrefix: options.keyPrefix }),
      ...(options.redisWaitReplicas === undefined ? {} : { waitReplicas: options.redisWaitReplicas }),
      ...(options.redisRawReads ? {} : { rawReads: false }),
    });
  } catch (error) {
    throw lastError === undefined ? error : new Error(reasonOf(error), { cause: lastError });
  } finally {
    opening = false;
  }
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
    process.stderr.write(`session-hub: could not load the auth key: ${reasonOf(error)}\n`);
    return 1;
  }
  let store: EventStore;
  const redisUrl = secretBearingUrl(options);
  const badUrl = options.redisUrl === undefined ? undefined : redisUrlProblem(options.redisUrl);
  if (badUrl !== undefined) {
    process.stderr.write(`session-hub: could not open the store: ${badUrl}\n`);
    return 1;
  }
  try {
    store = await openStore(options, logger);
  } catch (error) {
    // One line with the cause; never the error object itself: its properties (a URL TypeError's `input`) and
    // causes may hold the password.
    const where = redisTarget(options) === undefined ? '' : ` at ${describeRedis(options)}`;
    process.stderr.write(
      `session-hub: could not open the store${where}: ${redactSecrets(reasonOf(error), redisUrl)}\n`,
    );
    return 1;
  }
  let archive: ArchiveBackend | undefined;
  if (options.archive !== undefined) {
    try {
      archive = await openServeArchive(options.archive, logger);
    } catch (error) {
      const where = describeArchiveLocation(options.archive.location);
      process.stderr.write(
        `session-hub: could not open the archive ${where}: ${redactSecrets(reasonOf(error), options.archive.location)}\n`,
      );
      await store.close();
      return 1;
    }
  }
  const hub = createHub({
    store,
    ...(archive === undefined ? {} : { archive }),
    ...(options.archive?.policy.idempotencyWindowMs === undefined
      ? {}
      : { idempotencyWindowMs: options.archive.policy.idempotencyWindowMs }),
    port: options.port,
    host: options.host,
    logger,
    auth: createHubAuth(authenticator),
    nodeName,
    // Each start and stop fact once, on stdout (below); the JSON log on stderr is what happens while it runs.
    logLifecycle: false,
    lifecycle: options.lifecycle,
    secrets: options.secrets,
    ...(options.allowedOrigins === undefined ? {} : { allowedOrigins: options.allowedOrigins }),
    ...(options.allowedHosts === undefined ? {} : { allowedHosts: options.allowedHosts }),
    limits: options.limits,
    inspector: options.inspector,
    ...(options.presenceTtlMs === undefined ? {} : { presenceTtlMs: options.presenceTtlMs }),
    ...(options.cacheBytes === undefined ? {} : { sessionCacheBytes: options.cacheBytes }),
    ...(options.retention === undefined ? {} : { retention: options.retention }),
    snapshots: options.snapshots,
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
    process.stderr.write(`session-hub: ${listenFailure(listeningOn, error)}\n`);
    await hub.close();
    await archive?.close();
    await store.close();
    return 1;
  }
  const archiving =
    archive === undefined || options.archive === undefined
      ? undefined
      : startServeArchive(options.archive, archive, { store, logger, counts: hub.metrics.archive, nodeName });
  const engine =
    store.engine === 'memory'
      ? 'memory (embedded: one process only, NOTHING IS PERSISTED; use --redis for durable, multi-node logs)'
      : `redis (${describeRedis(options)})`;
  // Listening for signals before the startup lines go out: a supervisor (or a test) that stops the node as soon
  // as it has read them must not find it without a handler (the default action would kill it mid-flight).
  const stopped = new Promise<NodeJS.Signals>((resolve) => {
    const stop = (signal: NodeJS.Signals): void => {
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
      resolve(signal);
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  });
  // Each startup fact once, on stdout, for people and for supervisors that wait for the URL (the hub logs none of
  // them: `logLifecycle: false`); the JSON log on stderr is what happens while the node runs.
  const lines = [`session-hub listening on ${address.url} (WebSocket ${address.wsUrl})`, `engine: ${engine}`];
  if (archiving !== undefined) lines.push(`archive: ${archiving.description}`);
  if (metricsServer !== undefined) lines.push(`metrics: ${serverUrl(metricsServer)}/metrics (no token)`);
  if (options.auth.mode === 'open' && options.allowedHosts === undefined && !LOOPBACK_BINDS.has(options.host)) {
    lines.push(
      `hosts: this open hub listens on ${options.host} but answers only requests addressed to localhost, ` +
        '127.0.0.1 or [::1] (DNS-rebinding defence): list the names clients use with --allowed-hosts',
    );
  }
  const authNotice = authStartupNotice(options.auth).message.replace(/^auth: /, '');
  lines.push(`auth: ${options.auth.mode === 'open' ? `*** ${authNotice} ***` : authNotice}`);
  process.stdout.write(`${lines.join('\n')}\n`);

  const signal = await stopped;
  await hub.close();
  if (metricsServer !== undefined) await closeServer(metricsServer);
  await archiving?.close();
  await store.close();
  process.stdout.write(`session-hub stopped (${signal})\n`);
  return 0;
}

/**
 * Why something failed, in one line: the error's message and its causes' (`redis: not ready after 3000 ms: connect
 * ECONNREFUSED 127.0.0.1:6379`), each said once, no stack.
 */
export function reasonOf(error: unknown): string {
  const parts: string[] = [];
  for (let current: unknown = error, depth = 0; current !== undefined && depth < 5; depth++) {
    const message = current instanceof Error ? current.message : String(current);
    if (message !== '' && !parts.some((part) => part.includes(message))) parts.push(message);
    current = current instanceof Error ? current.cause : undefined;
  }
  return parts.join(': ').replace(/\s*\n\s*/g, ' ');
}
