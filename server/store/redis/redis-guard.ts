/**
 * What Redis (or whatever sits on the path to it) sends may fail a request or a connection, never the process.
 *
 * ioredis parses replies inside its socket's `data` listener: a reply it does not expect (an unsolicited `$-1`, an
 * empty array in subscriber mode) makes that listener throw a `TypeError` (5.11: `DataHandler.shiftCommand` calls
 * `reply.toString()` on a null reply when no command waits), and a throw there is an uncaught exception. The
 * connectors below give ioredis sockets whose `data` events are contained: a throw while a chunk is parsed destroys
 * that socket with a `RedisProtocolError`, which ioredis handles like any broken connection (pending commands fail,
 * it reconnects). The Sentinel connector also checks the master address a sentinel names before connecting to it,
 * and guards its own connections to the sentinels.
 */

import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import { SentinelConnector, type AbstractConnector, type RedisOptions } from 'ioredis';

/** The connection sent bytes the Redis client could not take: it was closed (ioredis reconnects). */
export class RedisProtocolError extends Error {
  override readonly name = 'RedisProtocolError';
  readonly code = 'REDIS_PROTOCOL';
}

type ErrorEmitter = (type: string, error: Error) => void;
/** ioredis' socket: a `net.Socket` or a `tls.TLSSocket` (a subclass). */
type RedisSocket = Socket;

/**
 * Contain throws of `stream`'s `data` listeners: the chunk is dropped with the socket, destroyed with a
 * `RedisProtocolError` (ioredis sees an error and a close, as for a reset connection).
 */
export function containReplies<S extends RedisSocket>(stream: S): S {
  const emit = stream.emit.bind(stream) as (event: string | symbol, ...args: unknown[]) => boolean;
  const contained = (event: string | symbol, ...args: unknown[]): boolean => {
    if (event !== 'data') return emit(event, ...args);
    try {
      return emit(event, ...args);
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      stream.destroy(new RedisProtocolError(`redis: a reply the client could not take (${why}); connection closed`));
      return true;
    }
  };
  stream.emit = contained as typeof stream.emit;
  return stream;
}

/** An ioredis connector class (what its `Connector` option takes). */
type ConnectorClass = new (options: unknown) => AbstractConnector & {
  connect(emitter: ErrorEmitter): Promise<unknown>;
};

// ioredis exports no standalone connector; it is the one `new Redis(...)` uses without sentinels.
const StandaloneConnector = (
  createRequire(import.meta.url)('ioredis/built/connectors/StandaloneConnector') as { default: ConnectorClass }
).default;

/** The plain TCP (or TLS, or Unix socket) connector of ioredis, with contained replies. */
export class GuardedStandaloneConnector extends StandaloneConnector {
  override async connect(emitter: ErrorEmitter): Promise<RedisSocket> {
    return containReplies((await super.connect(emitter)) as RedisSocket);
  }
}

/** A master address a sentinel may name: a host name or IP literal, and a TCP port. */
export function isMasterAddress(address: unknown): address is { host: string; port: number } {
  if (typeof address !== 'object' || address === null) return false;
  const { host, port } = address as { host?: unknown; port?: unknown };
  return (
    typeof host === 'string' &&
    /^[A-Za-z0-9._:%-]{1,253}$/.test(host) &&
    typeof port === 'number' &&
    Number.isInteger(port) &&
    port > 0 &&
    port <= 65535
  );
}

/** ioredis' SentinelConnector internals this file replaces (ioredis 5.x; checked by test/store/redis-guard.test.ts). */
interface SentinelInternals {
  connectToSentinel(endpoint: unknown, options?: RedisOptions): unknown;
  resolveMaster(client: unknown): Promise<unknown>;
}

/**
 * ioredis' Sentinel connector with contained replies on every connection it opens (to the master, and to the
 * sentinels), and a sentinel's answer checked: a master address that is not a host and a port counts as no answer
 * (the next sentinel is asked; ioredis 5.11 passed it to `net.connect` and ended the connection for good).
 */
export class GuardedSentinelConnector extends SentinelConnector {
  constructor(options: unknown) {
    super(options as RedisOptions);
    const internals = this as unknown as SentinelInternals;
    const connectToSentinel = internals.connectToSentinel.bind(this);
    const resolveMaster = internals.resolveMaster.bind(this);
    if (typeof connectToSentinel !== 'function' || typeof resolveMaster !== 'function') {
      throw new Error('ioredis: SentinelConnector internals changed (connectToSentinel, resolveMaster)');
    }
    internals.connectToSentinel = (endpoint, extra) =>
      connectToSentinel(endpoint, { ...extra, Connector: GuardedStandaloneConnector });
    internals.resolveMaster = async (client) => {
      const address = await resolveMaster(client);
      return isMasterAddress(address) ? address : null;
    };
  }

  override async connect(emitter: ErrorEmitter): Promise<RedisSocket> {
    return containReplies((await super.connect(emitter)) as RedisSocket);
  }
}

/** The guarded connector for connection options: Sentinel's when they name sentinels. */
export function guardedConnector(options: Pick<RedisOptions, 'sentinels'>): Pick<RedisOptions, 'Connector'> {
  return { Connector: Array.isArray(options.sentinels) ? GuardedSentinelConnector : GuardedStandaloneConnector };
}
