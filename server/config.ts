import type { SnapshotPolicy } from './snapshot/snapshot-policy.ts';
import type { RetentionConfig } from './archive/retention-rules.ts';
import { originPolicy, type AllowedOrigins } from './ws/origin-policy.ts';
import { hostPolicy } from './http/host-policy.ts';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { SUPPORTED_PROTOCOL_VERSIONS } from '../shared/protocol.ts';
import type { Logger } from './logger.ts';
import type { EventStore } from './store/event-store.ts';
import { resolveLimits, type HubLimits } from './limits/limits.ts';
import { openAuth, type HubAuth } from './auth/auth-seam.ts';
import type { ArchiveBackend } from './archive/archive-backend.ts';
import { TieredStore } from './archive/tiered-store.ts';

/** Configuration of one hub node (see `createHub`). Only `store` is required. */
export interface HubConfig {
  /** Where the logs live (`MemoryStore` or `RedisStore`). The hub does not close it. Required. */
  readonly store: EventStore;
  /**
   * The cold tier (an opened `ArchiveBackend`; `archiveBackendFor` names one from a location): reads below a
   * session's hot first seq come from it (the store is wrapped in a `TieredStore`), and `GET /v1/sessions` lists its
   * sessions. The hub does not close it. Absent: no archive.
   */
  readonly archive?: ArchiveBackend;
  /**
   * The idempotency window of this node's archive runs (docs/operations.md#the-idempotency-window): the admin
   * "archive now" drops the keys of the trimmed appends committed longer ago than this (ms). An `Archiver` the
   * embedder runs takes it in its policy (`ArchivePolicy.idempotencyWindowMs`). Default: keys kept forever.
   */
  readonly idempotencyWindowMs?: number;
  /** When projection snapshots are built (docs/operations.md#snapshots); over `DEFAULT_SNAPSHOT_POLICY`. */
  readonly snapshots?: Partial<SnapshotPolicy>;
  /** Which sessions expire, and when (docs/operations.md#retention). Default: none ever does. */
  readonly retention?: RetentionConfig;
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
  /**
   * Log the node's start and stop (`hub listening` with its URL and engine, the `AUTH DISABLED` warning of an open
   * hub, `hub shutting down`, `hub closed`). Default true; `session-hub serve` turns it off because it prints each
   * of these facts once itself, on stdout.
   */
  readonly logLifecycle?: boolean;
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
  /**
   * Scanning at append for secrets (docs/security.md#secret-scanning): `mode` `'reject'` refuses an append holding
   * one (SECRET_DETECTED), `'redact'` replaces each match by `[redacted]` and appends an audit event; `patterns`
   * are more regular expressions besides the built-in ones (bounded, no nested quantifiers). Default `'off'`.
   */
  readonly secrets?: { readonly mode: 'off' | 'redact' | 'reject'; readonly patterns?: readonly string[] };
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
  /** The configured store, wrapped in a `TieredStore` when an archive is configured. */
  readonly store: EventStore;
  readonly archive: ArchiveBackend | undefined;
  readonly idempotencyWindowMs: number | undefined;
  readonly port: number;
  readonly host: string;
  readonly nodeName: string;
  readonly logger: Logger | undefined;
  readonly logLevel: string;
  readonly logLifecycle: boolean;
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
    store: config.archive === undefined ? config.store : new TieredStore(config.store, config.archive),
    archive: config.archive,
    idempotencyWindowMs:
      config.idempotencyWindowMs === undefined
        ? undefined
        : positiveInteger(config.idempotencyWindowMs, 'idempotencyWindowMs'),
    port: config.port ?? 8080,
    host: config.host ?? '127.0.0.1',
    nodeName: config.nodeName ?? defaultNodeName(),
    logger: config.logger,
    logLevel: config.logLevel ?? process.env['LOG_LEVEL'] ?? 'info',
    logLifecycle: config.logLifecycle ?? true,
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
