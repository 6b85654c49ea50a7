import type { SnapshotPolicy } from './snapshot/snapshot-policy.ts';
import { originPolicy, type AllowedOrigins } from './ws/origin-policy.ts';
import { hostPolicy } from './http/host-policy.ts';
import type { IncomingHttpHeaders } from 'node:http';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { SUPPORTED_PROTOCOL_VERSIONS } from '../shared/protocol.ts';
import type { Logger } from './logger.ts';
import type { EventStore } from './store/event-store.ts';
import { checkLimits, DEFAULT_SECURITY_LIMITS, type SecurityLimits } from './limits/limits.ts';

/** What a caller wants to do to a session (the unit of authorization). */
export type HubAction = 'read' | 'append' | 'admin';

/** Who is calling, as established by `HubAuth.authenticate`. Opaque to the hub apart from these fields. */
export interface HubPrincipal {
  /** A name for logs (e.g. the JWT `sub`). */
  readonly subject: string;
  /** Epoch ms after which the credentials are void (the auth layer may end subscriptions then). */
  readonly expiresAt?: number;
  readonly [claim: string]: unknown;
}

/** Where a request came from, for authentication. */
export interface RequestInfo {
  readonly transport: 'ws' | 'http';
  readonly headers: IncomingHttpHeaders;
  /** Request path and query string. */
  readonly url: string;
  readonly remoteAddress: string | undefined;
}

/**
 * The auth seam. The hub calls `authenticate` on `hello` (with the hello token, else the upgrade request's
 * `Authorization: Bearer` / `?token=`), on `auth` (token refresh) and on every HTTP request; and `authorize`
 * before every subscribe, append and HTTP session request. Throw a `HubError` (UNAUTHORIZED, TOKEN_EXPIRED,
 * FORBIDDEN) to refuse; `authorize` may also return false (→ FORBIDDEN).
 */
export interface HubAuth {
  /**
   * True when this auth lets everyone in (no key configured): the hub then runs as an OPEN hub, answering only
   * loopback (or `allowedHosts`) `Host` values and loopback (or `allowedOrigins`) browser origins, and warns
   * `AUTH DISABLED` at startup. `openAuth` and `createHubAuth(openAuthenticator())` set it. Default false.
   */
  readonly open?: boolean;
  authenticate(token: string | undefined, request: RequestInfo): HubPrincipal | Promise<HubPrincipal>;
  authorize(principal: HubPrincipal, action: HubAction, sessionId: string): boolean | Promise<boolean>;
}

/** The default: everyone is `anonymous` and may do everything. */
export const openAuth: HubAuth = {
  open: true,
  authenticate: () => ({ subject: 'anonymous' }),
  authorize: () => true,
};

/**
 * Resource limits. Each breach gets a typed error (or a close code where the connection must end). The rate,
 * nesting and slow-consumer limits come from `SecurityLimits` (server/auth/limits.ts).
 */
export interface HubLimits extends SecurityLimits {
  /** Largest WebSocket frame / HTTP body in bytes; a bigger frame closes the socket with 1009. Default 1 MiB. */
  readonly maxFrameBytes: number;
  /** Most events in one append (BATCH_TOO_LARGE). Default 1,000. */
  readonly maxEventsPerAppend: number;
  /** Largest event (its JSON encoding) in bytes (EVENT_TOO_LARGE). Default 256 KiB. */
  readonly maxEventBytes: number;
  /** Most subscriptions on one connection (TOO_MANY_SUBSCRIPTIONS). Default 1,000. */
  readonly maxSubscriptionsPerConnection: number;
  /** Most open WebSocket connections per hub node; more are closed with 1013. Default 10,000. */
  readonly maxConnections: number;
  /** Time a new connection has to send `hello` before it is closed with 1002. Default 5 s. */
  readonly helloTimeoutMs: number;
  /** Events per store read during catch-up (and the HTTP page size cap). Default 1,000. */
  readonly catchUpPageSize: number;
  /** Live events a subscriber buffers while it catches up; older ones are re-read from the store. Default 10,000. */
  readonly maxBufferedLiveEvents: number;
  /**
   * Sustained appends per second of one principal on this node, WebSocket and HTTP together, over all its
   * connections: the token's subject, or the client's address on an open hub. Breach: RATE_LIMITED with
   * `details.retryAfterMs`. Default 5,000.
   */
  readonly principalAppendsPerSecond: number;
  /** Appends one principal may make at once above its sustained rate. Default 10,000. */
  readonly principalAppendBurst: number;
  /**
   * HTTP event pages (`GET /v1/sessions/:id/events`) read and written at once on this node; more get 429
   * RATE_LIMITED with `details.retryAfterMs`. Each holds at most about `maxFrameBytes` of events. Default 32.
   */
  readonly maxConcurrentPageReads: number;
}

export const defaultLimits: HubLimits = {
  ...DEFAULT_SECURITY_LIMITS,
  maxFrameBytes: 1024 * 1024,
  maxEventsPerAppend: 1000,
  maxEventBytes: 256 * 1024,
  maxSubscriptionsPerConnection: 1000,
  maxConnections: 10_000,
  helloTimeoutMs: 5000,
  catchUpPageSize: 1000,
  maxBufferedLiveEvents: 10_000,
  principalAppendsPerSecond: 5000,
  principalAppendBurst: 10_000,
  maxConcurrentPageReads: 32,
};

/** Configuration of one hub node (see `createHub`). Only `store` is required. */
export interface HubConfig {
  /** Where the logs live (`MemoryStore` or `RedisStore`). The hub does not close it. Required. */
  readonly store: EventStore;
  /** When projection snapshots are built (docs/operations.md#snapshots); over `DEFAULT_SNAPSHOT_POLICY`. */
  readonly snapshots?: Partial<SnapshotPolicy>;
  /** TCP port; 0 picks a free one. Default 8080. */
  readonly port?: number;
  /** Interface to bind. Default `127.0.0.1`. */
  readonly host?: string;
  /** Name of this node in `welcome`, logs and metrics. Default `<hostname>-<pid>-<random>`. */
  readonly nodeName?: string;
  /** A pino logger to use. Default: a new one at `logLevel`. */
  readonly logger?: Logger;
  /** Level of the default logger. Default `$LOG_LEVEL`, else `info`. */
  readonly logLevel?: string;
  /** Protocol versions this node speaks. Default `SUPPORTED_PROTOCOL_VERSIONS` ([1]). */
  readonly protocolVersions?: readonly number[];
  /** Authentication and authorization hooks. Default: open (everyone may do everything). */
  readonly auth?: HubAuth;
  /**
   * Browser origins (`Origin` of the WebSocket upgrade or HTTP request) that may connect: `'*'`, or a list such as
   * `['https://app.example.com']`; requests without an Origin (non-browser clients) always may. Default: every
   * origin when `auth` is set and not open; open (no auth, or `auth.open`), loopback origins only
   * (`http://localhost:*`, `http://127.0.0.1:*`, `http://[::1]:*`), so that a web page cannot drive an open hub on
   * its user's machine. Refused upgrades and HTTP requests get 403 (`/healthz` and `/readyz` excepted).
   */
  readonly allowedOrigins?: AllowedOrigins;
  /**
   * `Host` header values an OPEN hub answers besides loopback ones (`localhost`, `127.0.0.1`, `[::1]`, any port),
   * e.g. `['hub.internal', '10.0.0.5:8080']` (a value without a port matches any port). Others get 403 on HTTP
   * and on the WebSocket upgrade: a web page that rebinds its own DNS name to 127.0.0.1 (DNS rebinding) sends its
   * own name as `Host`. `/healthz` and `/readyz` answer any `Host`. Ignored with auth. Default: loopback only.
   */
  readonly allowedHosts?: readonly string[];
  /** Resource limits; unset fields take `defaultLimits`. */
  readonly limits?: Partial<HubLimits>;
  /** Sessions whose validation state is cached for appends. Default 1,000. */
  readonly sessionCacheSize?: number;
  /**
   * Budget in bytes of the cached validation states (a session's costs roughly 16 bytes per event plus its tool
   * results' data without content, never the events themselves); least recently used ones beyond it are dropped.
   * Default 64 MiB.
   */
  readonly sessionCacheBytes?: number;
  /**
   * `'enforce'`: every append must keep the log a valid prefix under the lifecycle rules (turns and steps open and
   * close in order, events with `{ turn, step }` inside the open step, tool results answer an open call of their
   * turn), else `LIFECYCLE_VIOLATION`. `'off'`: only the envelope, data shapes and surface rules are checked (for
   * logs of extension events that do not follow the run lifecycle). Default `'enforce'`.
   */
  readonly lifecycle?: LifecycleMode;
  /** A cached session unused this long is dropped. Default 60 s. */
  readonly sessionCacheIdleMs?: number;
  /** Times an append is re-validated and retried after another node moved the head (with full-jitter backoff). Default 32. */
  readonly appendRetries?: number;
  /** Longest wait for in-flight appends and socket closes on `close()`. Default 10 s. */
  readonly shutdownTimeoutMs?: number;
  /** Prefix of every metric name. Default `session_hub_`. */
  readonly metricsPrefix?: string;
  /** Serve the web inspector at `/inspect` (and redirect `/` there). Default true. */
  readonly inspector?: boolean;
  /** Presence: a watcher whose node stops refreshing it (the node died) lapses after this long (ms). Default 15 s. */
  readonly presenceTtlMs?: number;
  /** Presence: how often a session followed for presence is read for joins and leaves on other nodes. Default 1 s. */
  readonly presencePollMs?: number;
}

/** Whether appends are held to the lifecycle rules (see `HubConfig.lifecycle`). */
export type LifecycleMode = 'enforce' | 'off';

/** Default `HubConfig.sessionCacheBytes`: 64 MiB. */
export const DEFAULT_SESSION_CACHE_BYTES = 64 * 1024 * 1024;

function lifecycleMode(value: string): LifecycleMode {
  if (value === 'enforce' || value === 'off') return value;
  throw new RangeError(`lifecycle must be 'enforce' or 'off', got ${JSON.stringify(value)}`);
}

function positiveInteger(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value <= 0) throw new RangeError(`${name} must be a positive integer`);
  return value;
}

/** `HubConfig` with every default applied. */
export interface ResolvedHubConfig {
  readonly store: EventStore;
  readonly port: number;
  readonly host: string;
  readonly nodeName: string;
  readonly logger: Logger | undefined;
  readonly logLevel: string;
  readonly protocolVersions: readonly number[];
  readonly auth: HubAuth;
  /** The hub is OPEN (`auth.open`): no credentials, so browser origins and `Host` values are checked. */
  readonly open: boolean;
  /** May a request with this `Host` header (undefined: none) be answered? Always true with auth. */
  readonly hostAllowed: (host: string | undefined) => boolean;
  /** May a WebSocket upgrade with this `Origin` (undefined: none) connect? See `HubConfig.allowedOrigins`. */
  readonly originAllowed: (origin: string | undefined) => boolean;
  readonly limits: HubLimits;
  readonly sessionCacheSize: number;
  readonly sessionCacheBytes: number;
  readonly sessionCacheIdleMs: number;
  readonly lifecycle: LifecycleMode;
  readonly appendRetries: number;
  readonly shutdownTimeoutMs: number;
  readonly metricsPrefix: string;
  readonly inspector: boolean;
  readonly presenceTtlMs: number;
  readonly presencePollMs: number;
}

export function defaultNodeName(): string {
  return `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
}

export function resolveConfig(config: HubConfig): ResolvedHubConfig {
  const auth = config.auth ?? openAuth;
  const open = auth.open === true;
  return {
    store: config.store,
    port: config.port ?? 8080,
    host: config.host ?? '127.0.0.1',
    nodeName: config.nodeName ?? defaultNodeName(),
    logger: config.logger,
    logLevel: config.logLevel ?? process.env['LOG_LEVEL'] ?? 'info',
    protocolVersions: config.protocolVersions ?? SUPPORTED_PROTOCOL_VERSIONS,
    auth,
    open,
    hostAllowed: hostPolicy(config.allowedHosts, !open),
    originAllowed: originPolicy(config.allowedOrigins, !open),
    limits: resolveLimits(config.limits),
    sessionCacheSize: config.sessionCacheSize ?? 1000,
    sessionCacheBytes: positiveInteger(config.sessionCacheBytes ?? DEFAULT_SESSION_CACHE_BYTES, 'sessionCacheBytes'),
    sessionCacheIdleMs: config.sessionCacheIdleMs ?? 60_000,
    lifecycle: lifecycleMode(config.lifecycle ?? 'enforce'),
    appendRetries: config.appendRetries ?? 32,
    shutdownTimeoutMs: config.shutdownTimeoutMs ?? 10_000,
    metricsPrefix: config.metricsPrefix ?? 'session_hub_',
    inspector: config.inspector ?? true,
    presenceTtlMs: positiveMs('presenceTtlMs', config.presenceTtlMs ?? 15_000),
    presencePollMs: positiveMs('presencePollMs', config.presencePollMs ?? 1000),
  };
}

function positiveMs(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 100 || value > 3_600_000) {
    throw new RangeError(`${name} must be an integer number of ms from 100 to 3,600,000, got ${String(value)}`);
  }
  return value;
}

/** `defaultLimits` overlaid with the given ones (undefined fields keep the default); throws on nonsense values. */
export function resolveLimits(overrides: Partial<HubLimits> = {}): HubLimits {
  const defined = Object.fromEntries(Object.entries(overrides).filter(([, value]) => value !== undefined));
  const limits: HubLimits = { ...defaultLimits, ...defined };
  checkLimits({ ...limits });
  return limits;
}
