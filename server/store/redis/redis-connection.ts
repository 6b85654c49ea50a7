import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import { StoreRequestError, StoreUnavailableError } from '../event-store.ts';
import { withTimeout } from '../../../shared/timeout.ts';
import { backoffDelay, type BackoffOptions } from '../../../shared/backoff.ts';
import { GuardedStandaloneConnector, guardedConnector } from './redis-guard.ts';

/** A connection of the Redis engine: one Redis (direct or found through Sentinel), or a Redis Cluster. */
export type RedisClient = Redis | Cluster;

/** Where the Redis engine's data lives: the three deployments it supports. */
export type RedisTopology =
  | {
      readonly kind: 'single';
      /** `redis://[user:pass@]host:port[/db]` (`rediss://` for TLS). */
      readonly url: string;
    }
  | {
      readonly kind: 'sentinel';
      /** `host:port` of the sentinels. */
      readonly sentinels: readonly string[];
      /** The master name the sentinels monitor. */
      readonly name: string;
      /** The sentinels' own login (their `requirepass` / ACL user), if they ask for one. */
      readonly sentinelAuth?: RedisAuth;
      /** The master's (and its replicas') login, if it asks for one. */
      readonly masterAuth?: RedisAuth;
    }
  | {
      readonly kind: 'cluster';
      /** Seed node URLs (`redis://[user:pass@]host:port`, `rediss://` for TLS); the rest is discovered. */
      readonly seeds: readonly string[];
    };

/** A Redis login: a password, with an ACL user name or without (the `default` user). */
export interface RedisAuth {
  readonly username?: string | undefined;
  readonly password?: string | undefined;
}

export interface ConnectionTimeouts {
  readonly connectTimeoutMs: number;
  readonly commandTimeoutMs: number;
}

/** The store's two connections: commands (fail fast, no offline queue) and notifications (queues while down). */
export interface RedisConnections {
  readonly command: RedisClient;
  readonly subscriber: RedisClient;
}

/** Delay between attempts of a command refused by a cluster in motion (TRYAGAIN, CLUSTERDOWN, failover). */
const CLUSTER_RETRY_DELAY_MS = 100;

function hostPort(text: string, what: string): { host: string; port: number } {
  const match = /^\[?([^\]\s]+?)\]?:(\d{1,5})$/.exec(text.trim());
  const port = Number(match?.[2]);
  if (match === null || !(port > 0 && port <= 65535)) {
    throw new StoreRequestError(`${what}: expected host:port, got "${text}"`);
  }
  return { host: match[1]!, port };
}

/** A cluster seed URL as ioredis wants it: the node address, and the auth and TLS every node shares. */
function parseSeed(text: string): { node: { host: string; port: number }; auth: RedisOptions } {
  let url: URL;
  try {
    url = new URL(text.includes('://') ? text : `redis://${text}`);
  } catch {
    throw new StoreRequestError(`cluster seed: not a Redis URL: "${text.replace(/\/\/[^@/]*@/, '//***@')}"`);
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    throw new StoreRequestError(`cluster seed: expected redis:// or rediss://, got "${url.protocol}"`);
  }
  const auth: RedisOptions = {
    ...(url.username === '' ? {} : { username: decodeURIComponent(url.username) }),
    ...(url.password === '' ? {} : { password: decodeURIComponent(url.password) }),
    ...(url.protocol === 'rediss:' ? { tls: {} } : {}),
  };
  return { node: { host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port || 6379) }, auth };
}

/** `auth` as the two ioredis options named (only those set). */
function login<U extends keyof RedisOptions, P extends keyof RedisOptions>(
  auth: RedisAuth | undefined,
  user: U,
  password: P,
): Partial<Record<U | P, string>> {
  const options: Partial<Record<U | P, string>> = {};
  if (auth?.username !== undefined && auth.username !== '') options[user] = auth.username;
  if (auth?.password !== undefined && auth.password !== '') options[password] = auth.password;
  return options;
}

/** TCP keep-alive of the store's connections: a NAT or balancer that drops idle flows is noticed. */
export const KEEP_ALIVE_MS = 10_000;

const common = (timeouts: ConnectionTimeouts): RedisOptions => ({
  // Replies ioredis cannot take fail the connection, not the process (redis-guard.ts); Sentinel swaps its own in.
  Connector: GuardedStandaloneConnector,
  // The store names its keys itself and must connect at once, whatever a template connection says.
  keyPrefix: '',
  lazyConnect: false,
  connectTimeout: timeouts.connectTimeoutMs,
  keepAlive: KEEP_ALIVE_MS,
});

/** Reconnect after a dropped connection: up to 50 ms for the first attempt, growing to 1 s. */
const RECONNECT_BACKOFF: BackoffOptions = { initialDelayMs: 50, maxDelayMs: 1000, factor: 2 };
/** ioredis counts reconnect attempts from 1. */
const reconnectDelay = (attempt: number): number => backoffDelay(attempt - 1, RECONNECT_BACKOFF);

/** Commands fail fast while Redis is unreachable: no offline queue, no retry, a timeout. */
const commandOptions = (timeouts: ConnectionTimeouts): RedisOptions => ({
  ...common(timeouts),
  retryStrategy: reconnectDelay,
  enableOfflineQueue: false,
  maxRetriesPerRequest: 0,
  autoResendUnfulfilledCommands: false,
  commandTimeout: timeouts.commandTimeoutMs,
  // No auto-pipelining on one Redis / Sentinel: it builds a Pipeline object per event-loop turn, which at the rates
  // agents stream (one commit per turn) cost 7–18 % more server CPU per append (four paired fresh-node runs at
  // 200/s), while at saturation Node's socket already coalesces queued writes (paired runs: the same CPU per
  // append, 71–72 ms per 1k either way). See docs/performance.md.
  enableAutoPipelining: false,
});

/** The notification connection queues its SUBSCRIBEs while down; the store resubscribes itself after a drop. */
const subscriberOptions = (timeouts: ConnectionTimeouts): RedisOptions => ({
  ...common(timeouts),
  retryStrategy: reconnectDelay,
  enableOfflineQueue: true,
  maxRetriesPerRequest: null,
  autoResubscribe: false,
});

function clusterConnections(seeds: readonly string[], timeouts: ConnectionTimeouts): RedisConnections {
  if (seeds.length === 0) throw new StoreRequestError('a Redis Cluster needs at least one seed URL');
  const parsed = seeds.map(parseSeed);
  const nodes = parsed.map((seed) => seed.node);
  const auth = parsed[0]!.auth;
  // MOVED/ASK are followed at once; TRYAGAIN and CLUSTERDOWN are retried every CLUSTER_RETRY_DELAY_MS, as many
  // times as fit in the command timeout, then the command fails. A command whose node connection closed (a master
  // died) is NOT sent again: a commit may have run, and is answered `maybeCommitted` (retry with its key).
  const redirections = Math.max(16, Math.ceil(timeouts.commandTimeoutMs / CLUSTER_RETRY_DELAY_MS));
  const cluster: ClusterOptions = {
    maxRedirections: redirections,
    retryDelayOnTryAgain: CLUSTER_RETRY_DELAY_MS,
    retryDelayOnClusterDown: CLUSTER_RETRY_DELAY_MS,
    slotsRefreshTimeout: timeouts.connectTimeoutMs,
    slotsRefreshInterval: 2000,
    lazyConnect: false,
  };
  // Node connections: ioredis connects them on first use (lazyConnect) and never reconnects them itself.
  const nodeOptions = (options: RedisOptions): RedisOptions => {
    const { retryStrategy: _retry, enableOfflineQueue: _queue, lazyConnect: _lazy, ...rest } = options;
    return rest;
  };
  const command = new Cluster(nodes, {
    ...cluster,
    retryDelayOnFailover: 0,
    enableOfflineQueue: false,
    enableAutoPipelining: true,
    redisOptions: { ...nodeOptions(commandOptions(timeouts)), ...auth },
  });
  const subscriber = new Cluster(nodes, {
    ...cluster,
    retryDelayOnFailover: CLUSTER_RETRY_DELAY_MS,
    enableOfflineQueue: true,
    // One subscriber connection per master: SSUBSCRIBE of a session's channel goes to the master of its slot.
    shardedSubscribers: true,
    redisOptions: { ...nodeOptions(subscriberOptions(timeouts)), ...auth },
  });
  return { command, subscriber };
}

/** What ioredis reports when a reply arrives with no command waiting for it. */
const STRAY_REPLY = /^Command queue state error\b/;

/** ioredis reports a refused `SELECT` of the URL's database as an error and goes on, in database 0. */
const isSelectRefusal = (error: Error): boolean =>
  (error as Error & { command?: { name?: unknown } }).command?.name === 'select';

/**
 * Two replies after which a connection is dropped and reconnects (its pending commands fail), before it is ready:
 * - a reply that no command waits for (something on the path injected it): replies and commands may be paired
 *   wrongly from then on. Not on a Cluster, whose subscribers get such a push legitimately when a slot moves
 *   (redis-pubsub.ts);
 * - a refused `SELECT` (`redis://host/16` on a Redis with 16 databases): ioredis would go on in database 0 and
 *   write the sessions there. The connection never gets ready, so the store does not open (the error says why).
 */
export function dropOnBadReplies(connection: Redis): Redis {
  connection.on('error', (error: Error) => {
    if (STRAY_REPLY.test(error.message) || isSelectRefusal(error)) connection.disconnect(true);
  });
  return connection;
}

function dropOnStrayReply(connections: { command: Redis; subscriber: Redis }): RedisConnections {
  dropOnBadReplies(connections.command);
  dropOnBadReplies(connections.subscriber);
  return connections;
}

/**
 * Open the store's two connections to `topology` (or duplicates of `template`'s settings). Throws
 * `StoreRequestError` on a malformed address; connection trouble is reported later, through the connections.
 */
export function openRedisConnections(
  topology: RedisTopology,
  timeouts: ConnectionTimeouts,
  template?: Redis,
): RedisConnections {
  if (template !== undefined) {
    const connector = guardedConnector(template.options);
    return dropOnStrayReply({
      command: template.duplicate({ ...commandOptions(timeouts), ...connector }),
      subscriber: template.duplicate({ ...subscriberOptions(timeouts), ...connector }),
    });
  }
  switch (topology.kind) {
    case 'single':
      return dropOnStrayReply({
        command: new Redis(topology.url, commandOptions(timeouts)),
        subscriber: new Redis(topology.url, subscriberOptions(timeouts)),
      });
    case 'sentinel': {
      if (topology.sentinels.length === 0) throw new StoreRequestError('Sentinel needs at least one host:port');
      if (topology.name === '') throw new StoreRequestError('Sentinel needs the master name');
      const sentinel: RedisOptions = {
        sentinels: topology.sentinels.map((address) => hostPort(address, 'sentinel')),
        name: topology.name,
        role: 'master',
        ...guardedConnector({ sentinels: [] }),
        // A sentinel that accepts the connection and never answers must not hold the start (or the close) forever.
        sentinelCommandTimeout: timeouts.commandTimeoutMs,
        ...login(topology.sentinelAuth, 'sentinelUsername', 'sentinelPassword'),
        ...login(topology.masterAuth, 'username', 'password'),
      };
      return dropOnStrayReply({
        command: new Redis({ ...commandOptions(timeouts), ...sentinel }),
        subscriber: new Redis({ ...subscriberOptions(timeouts), ...sentinel }),
      });
    }
    case 'cluster':
      return clusterConnections(topology.seeds, timeouts);
  }
}

/** The connections' Redis nodes that hold data: every master of a cluster, else the one Redis. */
export function dataNodes(client: RedisClient): Redis[] {
  return client instanceof Cluster ? client.nodes('master') : [client];
}

/** Where the options point: a cluster, sentinels, or one Redis. */
export function topologyOf(options: {
  readonly cluster?: readonly string[] | undefined;
  readonly sentinels?: readonly string[] | undefined;
  readonly sentinelName?: string | undefined;
  readonly sentinelAuth?: RedisAuth | undefined;
  readonly masterAuth?: RedisAuth | undefined;
  readonly url?: string | undefined;
}): RedisTopology {
  if (options.cluster !== undefined) return { kind: 'cluster', seeds: options.cluster };
  if (options.sentinels !== undefined) {
    return {
      kind: 'sentinel',
      sentinels: options.sentinels,
      name: options.sentinelName ?? '',
      ...(options.sentinelAuth === undefined ? {} : { sentinelAuth: options.sentinelAuth }),
      ...(options.masterAuth === undefined ? {} : { masterAuth: options.masterAuth }),
    };
  }
  return { kind: 'single', url: options.url ?? 'redis://127.0.0.1:6379' };
}

/** Resolves once `connection` is ready; rejects with STORE_UNAVAILABLE after `timeoutMs`. */
export function connectionReady(connection: RedisClient, timeoutMs: number): Promise<void> {
  if (connection.status === 'ready') return Promise.resolve();
  let onReady = (): void => undefined;
  const ready = new Promise<void>((resolve) => {
    onReady = resolve;
    connection.once('ready', onReady);
  });
  const notReady = () => new StoreUnavailableError(`redis: not ready after ${timeoutMs} ms`);
  return withTimeout(ready, timeoutMs, notReady).finally(() => connection.off('ready', onReady));
}
