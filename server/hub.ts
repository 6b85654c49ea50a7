import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { CloseCode, HubErrorCode } from '../shared/protocol.ts';
import { AppendPipeline, type AppendPipelineDeps } from './append/pipeline.ts';
import { resolveConfig, type HubConfig, type ResolvedHubConfig } from './config.ts';
import type { RequestInfo } from './auth/auth-seam.ts';
import { Connection, type ConnectionContext, type UpgradeToken } from './ws/connection.ts';
import { createHttpHandler } from './http/routes.ts';
import { withInspector } from './http/inspector-route.ts';
import { PresenceTracker } from './presence/presence-tracker.ts';
import { loadInspectorAssets } from './http/inspector-assets.ts';
import { createLogger, type Logger } from './logger.ts';
import { HubError } from './hub-error.ts';
import { HubMetrics } from './metrics.ts';
import { requestUrl } from './request-url.ts';
import { browserRefusal } from './http/browser-guard.ts';
import { PrincipalRateLimits } from './limits/principal-rate.ts';
import { requestToken } from './auth/request-token.ts';
import { ChannelRegistry } from './fanout/channel-registry.ts';
import { SessionCache } from './append/session-cache.ts';
import { ScanningPipeline } from './append/scanning-pipeline.ts';
import { SecretScanner } from '../shared/secret-scan.ts';
import { withTimeout } from '../shared/timeout.ts';
import { PendingConnections, type PendingTicket } from './limits/pending-connections.ts';
import { SubscriptionBudget } from './limits/subscription-budget.ts';
import { storeReadLimits } from './limits/store-reads.ts';
import { forkSession, type ForkService } from './append/fork-session.ts';
import { LineageStore } from './store/lineage/lineage-store.ts';

import { SnapshotBuilder } from './snapshot/snapshot-builder.ts';
import { resolveSnapshotPolicy } from './snapshot/snapshot-policy.ts';
import { SnapshotSource } from './snapshot/snapshot-source.ts';
import { RetentionMetrics } from './archive/retention-metrics.ts';
import { RetentionSweeper } from './archive/retention-sweeper.ts';
import { archiveNowOf, restoreNowOf } from './archive/archive-now.ts';

/** Path of the WebSocket endpoint. */
export const WS_PATH = '/v1/ws';

export interface HubAddress {
  /** `http://host:port` (the WebSocket endpoint is `ws://host:port/v1/ws`). */
  readonly url: string;
  readonly wsUrl: string;
  readonly host: string;
  readonly port: number;
}

/** One hub node: WebSocket protocol v1 on `/v1/ws` plus the HTTP API, on one port. */
export interface Hub {
  readonly nodeName: string;
  readonly config: ResolvedHubConfig;
  readonly logger: Logger;
  readonly metrics: HubMetrics;
  /** Open WebSocket connections that completed `hello` (those counted against `maxConnections`). */
  readonly connectionCount: number;
  /** Open WebSocket connections that have not completed `hello` yet (see `maxPendingConnections`). */
  readonly pendingConnectionCount: number;
  /** Start listening on `config.port` / `config.host`. */
  listen(): Promise<HubAddress>;
  /** The address once listening. */
  address(): HubAddress | undefined;
  /**
   * Graceful shutdown: stop accepting, refuse new appends (SHUTTING_DOWN), finish the in-flight ones, close every
   * socket with 1001 (GOING_AWAY), stop the store watches. Does not close the store. Idempotent.
   */
  close(): Promise<void>;
}

/** Create a hub node (not listening yet: call `listen()`). */
export function createHub(input: HubConfig): Hub {
  const config = resolveConfig(input);
  const { limits, nodeName } = config;
  // Forks read their prefix from their parents: every reader of the node reads through the lineage layer.
  const store = LineageStore.over(config.store);
  const logger = config.logger ?? createLogger(config.logLevel, { node: nodeName });
  const metrics = new HubMetrics(config.metricsPrefix);
  /** Every store read of the node is bounded by bytes from these (catch-up, the append cache, gap fills, pages). */
  const reads = storeReadLimits(limits);

  metrics.storeCounters = store.counters;
  const cache = new SessionCache({
    store,
    logger,
    metrics,
    reads,
    maxSessions: config.sessionCacheSize,
    maxBytes: config.sessionCacheBytes,
    idleMs: config.sessionCacheIdleMs,
    lifecycle: config.lifecycle === 'enforce',
  });
  // Snapshots are built off the append path, from this node's own commits once they are acked.
  const snapshots = new SnapshotBuilder({
    store,
    policy: resolveSnapshotPolicy(input.snapshots),
    nodeName,
    logger,
    metrics,
    reads,
  });
  const snapshotSource = new SnapshotSource({ store, builder: snapshots, metrics, logger });
  // Retention: one node at a time sweeps (a lease in the store); every node's metrics show it.
  const retentionMetrics = new RetentionMetrics(metrics.registry, config.metricsPrefix);
  const retention = new RetentionSweeper({
    store,
    config: input.retention,
    nodeName,
    logger,
    metrics: retentionMetrics,
  });
  const pipelineDeps: AppendPipelineDeps = {
    store,
    cache,
    limits,
    retries: config.appendRetries,
    logger,
    metrics,
    // Creation time and author go to the session's metadata (a write of its own: a failure is logged, never the append's).
    onSessionCreated: (sessionId, createdBy, createdAt) => {
      const init = createdBy === '' ? { createdAt } : { createdAt, createdBy };
      store.metadata.initialize(sessionId, init).catch((error: unknown) => {
        logger.warn({ err: error, sessionId }, 'could not record the session creation in its metadata');
      });
    },
    // This node's commits reach its subscribers from here (after the acks), other nodes' through the store watch.
    localCommits: {
      started: (sessionId) => channels.ownCommitStarted(sessionId),
      finished: (sessionId, batch, bytes) => {
        channels.ownCommitFinished(sessionId, batch);
        if (batch !== undefined) snapshots.observe(batch, bytes ?? 0);
      },
    },
  };
  const secrets = input.secrets;
  const pipeline =
    secrets === undefined || secrets.mode === 'off'
      ? new AppendPipeline(pipelineDeps)
      : new ScanningPipeline(pipelineDeps, new SecretScanner(secrets));
  const fork: ForkService = async (input, authorize, createdBy) => {
    // Like an append: a node shutting down makes no new session.
    if (shuttingDown) throw new HubError(HubErrorCode.SHUTTING_DOWN, 'the hub is shutting down');
    const outcome = await forkSession(input, { store, reads, authorize });
    cache.invalidate(outcome.sessionId); // the id may have been cached as an empty session
    // The lineage goes to the child's metadata too (a write of its own, as at a first append: logged if it fails).
    const lineage = { createdAt: Date.now(), parent: outcome.parent, forkSeq: outcome.forkSeq };
    const init = createdBy === '' ? lineage : { ...lineage, createdBy };
    store.metadata.initialize(outcome.sessionId, init).catch((error: unknown) => {
      logger.warn({ err: error, sessionId: outcome.sessionId }, 'could not record the fork in its metadata');
    });
    return outcome;
  };
  const stopReconnectWatch = store.onReconnect(() => {
    logger.info('the store reconnected: cached sessions will be rebuilt from it');
    cache.storeReconnected();
  });
  const channels = new ChannelRegistry({
    store,
    logger,
    metrics,
    reads,
    onCommitted: (sessionId, epoch, events) => cache.apply(sessionId, epoch, events),
    onReset: (sessionId) => cache.invalidate(sessionId),
  });
  const principalRate = new PrincipalRateLimits({
    ratePerSecond: limits.principalAppendsPerSecond,
    burst: limits.principalAppendBurst,
    byAddress: config.open,
  });
  const presence = new PresenceTracker({
    store: store.presence,
    nodeName,
    logger,
    ttlMs: config.presenceTtlMs,
    pollMs: config.presencePollMs,
  });
  /** Every open connection (closed on shutdown); `admitted` are those past `hello`. */
  const connections = new Set<Connection>();
  const admitted = new Set<Connection>();
  const pending = new PendingConnections(limits);
  const subscriptionBudget = new SubscriptionBudget(limits.maxSubscriptionsPerNode);
  let shuttingDown = false;
  let closing: Promise<void> | undefined;
  let listening: HubAddress | undefined;
  retention.start();

  const api = createHttpHandler({
    store,
    pipeline,
    auth: config.auth,
    browserPolicy: config,
    principalRate,
    limits,
    metrics,
    logger,
    nodeName,
    isShuttingDown: () => shuttingDown,
    onSessionDeleted: (sessionId) => cache.invalidate(sessionId),
    fork,
    snapshots: snapshotSource,
    ...(config.archive === undefined
      ? {}
      : {
          archive: config.archive,
          archiveNow: archiveNowOf(config.store, config.archive, nodeName, config.idempotencyWindowMs),
          restoreNow: restoreNowOf(config.store, config.archive, nodeName),
        }),
  });
  const server = createServer(
    {
      // Slow clients (slowloris) cannot hold sockets: headers and whole requests have deadlines, checked each second.
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, limits.headersTimeoutMs),
    },
    config.inspector ? withInspector(api, () => loadInspectorAssets(), logger) : api,
  );
  // The hub tracks its connections itself: no `wss.clients` set (and its close listener) per socket.
  const wss = new WebSocketServer({ noServer: true, maxPayload: limits.maxFrameBytes, clientTracking: false });
  const sweepTimer = setInterval(() => cache.sweep(), Math.max(1000, config.sessionCacheIdleMs / 2));
  sweepTimer.unref();

  /** Connections that have not completed `hello`, with their place in the pending budget. */
  const tickets = new Map<Connection, PendingTicket>();
  // One context for every connection (a connection holds only its own state).
  const connectionContext: ConnectionContext = {
    channels,
    logger,
    metrics,
    pipeline,
    metadata: store.metadata,
    auth: config.auth,
    nodeName,
    protocolVersions: config.protocolVersions,
    helloTimeoutMs: limits.helloTimeoutMs,
    limits,
    reads,
    maxFrameBytes: limits.maxFrameBytes,
    maxBufferedLiveEvents: limits.maxBufferedLiveEvents,
    maxSubscriptions: limits.maxSubscriptionsPerConnection,
    nodeSubscriptions: subscriptionBudget,
    presence,
    snapshots: snapshotSource,
    retention: store.retention,
    principalRate,
    fork,
    admit: (connection) => {
      if (admitted.size >= limits.maxConnections) {
        metrics.errors.inc({ code: HubErrorCode.TOO_MANY_CONNECTIONS });
        return false;
      }
      tickets.get(connection)?.release();
      tickets.delete(connection);
      admitted.add(connection);
      metrics.connections.inc();
      return true;
    },
    closed: (connection) => {
      tickets.get(connection)?.release();
      tickets.delete(connection);
      connections.delete(connection);
      if (admitted.delete(connection)) metrics.connections.dec();
    },
  };

  const onConnection = (ws: WebSocket, request: IncomingMessage, ticket: PendingTicket): void => {
    if (shuttingDown) {
      ticket.release();
      ws.close(CloseCode.GOING_AWAY, 'hub shutting down');
      return;
    }
    const info: RequestInfo = {
      transport: 'ws',
      headers: request.headers,
      url: request.url ?? WS_PATH,
      remoteAddress: request.socket.remoteAddress,
    };
    const connection = new Connection(ws, connectionContext, info, readUpgradeToken(request));
    tickets.set(connection, ticket);
    connections.add(connection);
  };

  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = requestUrl(request)?.pathname;
    if (path !== WS_PATH || shuttingDown) {
      const status =
        path === undefined ? '400 Bad Request' : shuttingDown ? '503 Service Unavailable' : '404 Not Found';
      // Node no longer watches this socket: a peer that resets it while the refusal is written must not crash us.
      socket.on('error', () => socket.destroy());
      socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    const refusal = browserRefusal(request.headers, config);
    if (refusal !== undefined) {
      const { host, origin } = request.headers;
      logger.warn(
        { host, origin, remote: request.socket.remoteAddress },
        `WebSocket upgrade refused: ${refusal.message}`,
      );
      socket.on('error', () => socket.destroy());
      socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    // Until its hello, a connection counts against the pending budget only (see PendingConnections).
    const remote = request.socket.remoteAddress ?? 'unknown';
    const ticket = pending.admit(remote, () => socket.destroy());
    if (ticket === undefined) {
      metrics.errors.inc({ code: HubErrorCode.TOO_MANY_CONNECTIONS });
      logger.warn({ remote }, 'WebSocket upgrade refused: too many connections without hello from this address');
      socket.on('error', () => socket.destroy());
      socket.end('HTTP/1.1 429 Too Many Requests\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    // Until the connection exists (the handshake can fail), the socket's close gives the ticket back; from then on the
    // connection's close does, and this listener is removed: it would keep the upgrade request alive.
    const release = (): void => ticket.release();
    socket.once('close', release);
    wss.handleUpgrade(request, socket, head, (ws) => {
      socket.off('close', release);
      onConnection(ws, request, ticket);
    });
  });

  const closeSockets = async (): Promise<void> => {
    for (const connection of connections) connection.close(CloseCode.GOING_AWAY, 'hub shutting down');
    const deadline = Date.now() + config.shutdownTimeoutMs;
    while (connections.size > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    for (const connection of connections) connection.terminate();
  };

  const shutdown = async (): Promise<void> => {
    shuttingDown = true;
    if (config.logLifecycle) logger.info({ connections: connections.size }, 'hub shutting down');
    const serverClosed = new Promise<void>((resolve) => server.close(() => resolve()));
    const drainTimeout = () => new Error(`in-flight appends did not finish in ${config.shutdownTimeoutMs} ms`);
    await withTimeout(pipeline.drain(), config.shutdownTimeoutMs, drainTimeout).catch((error: unknown) =>
      logger.warn({ err: error }, 'in-flight appends did not finish in time'),
    );
    // Presence first: its watchers leave in one write per session, and the sockets closing next write nothing more.
    await presence.close();
    await closeSockets();
    channels.closeAll();
    await snapshots.close();
    await retention.close();
    stopReconnectWatch();
    cache.clear();
    clearInterval(sweepTimer);
    wss.close();
    server.closeAllConnections();
    await serverClosed;
    if (config.logLifecycle) logger.info('hub closed');
  };

  return {
    nodeName,
    config,
    logger,
    metrics,
    get connectionCount() {
      return admitted.size;
    },
    get pendingConnectionCount() {
      return pending.size;
    },
    listen: () =>
      new Promise<HubAddress>((resolve, reject) => {
        server.once('error', reject);
        server.listen(config.port, config.host, () => {
          server.off('error', reject);
          const { port } = server.address() as AddressInfo;
          const host = config.host.includes(':') ? `[${config.host}]` : config.host;
          listening = {
            url: `http://${host}:${port}`,
            wsUrl: `ws://${host}:${port}${WS_PATH}`,
            host: config.host,
            port,
          };
          if (config.logLifecycle) {
            logger.info({ url: listening.url, engine: store.engine }, 'hub listening');
            if (config.open) logger.warn('AUTH DISABLED: no auth configured, every client may do everything');
          }
          resolve(listening);
        });
      }),
    address: () => listening,
    close: () => {
      closing ??= shutdown();
      return closing;
    },
  };
}

/**
 * The upgrade request's token, read once at the upgrade: the connection keeps the string (or the typed error of a
 * malformed `Authorization` header, thrown on `hello`), never the request itself (its socket, parser and buffers).
 */
function readUpgradeToken(request: IncomingMessage): UpgradeToken {
  try {
    return requestToken(request);
  } catch (error) {
    return { malformed: error };
  }
}
