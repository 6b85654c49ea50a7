import { parseArgs } from 'node:util';
import { MAX_SECRET_PATTERNS, secretPatternProblem } from '../../shared/secret-scan.ts';
import { resolveAuthConfig, type AuthConfig } from '../auth/auth-config.ts';
import { LOG_LEVELS } from '../logger.ts';
import type { HubLimits } from '../limits/limits.ts';
import { parseHostHeader } from '../http/host-policy.ts';
import { LIMIT_FLAGS, limitFlagsUsage } from './limit-flags.ts';
import { parseRedisFlags, REDIS_FLAG_OPTIONS, redisFlagsUsage, type RedisFlagOptions } from './redis-flags.ts';
import {
  parseRetentionFlags,
  RETENTION_FLAG_OPTIONS,
  retentionFlagsUsage,
  type RetentionFlagOptions,
} from './retention-flags.ts';
import { parseSnapshotFlags, SNAPSHOT_FLAG_OPTIONS, snapshotFlagsUsage } from './snapshot-flags.ts';
import { ARCHIVE_FLAG_OPTIONS, archiveFlagsUsage, parseArchiveFlags, type ArchiveSettings } from './archive-flags.ts';
import type { HubConfig } from '../config.ts';

/** Options of `session-hub serve`, after flags and environment are merged (flags win). */
export interface ServeOptions extends RedisFlagOptions, RetentionFlagOptions {
  readonly port: number;
  readonly host: string;
  /** Redis URL; undefined (and no cluster or sentinels) → the memory engine. */
  readonly redisUrl: string | undefined;
  /** Redis Cluster seed URLs (`--redis-cluster`), instead of `redisUrl`. */
  readonly redisCluster: readonly string[] | undefined;
  /** Sentinels `host:port` (`--redis-sentinels`), instead of `redisUrl`; with `redisSentinelName`. */
  readonly redisSentinels: readonly string[] | undefined;
  readonly redisSentinelName: string | undefined;
  /** Replicas a commit waits for before its ack (`--redis-wait-replicas`); undefined → 0. */
  readonly redisWaitReplicas: number | undefined;
  readonly keyPrefix: string | undefined;
  readonly logLevel: string;
  readonly nodeName: string | undefined;
  /** Auth: open (no key) or JWT with the configured key (see server/auth/auth-config.ts). */
  readonly auth: AuthConfig;
  /** Browser origins allowed to open a WebSocket (undefined: the default of `HubConfig.allowedOrigins`). */
  readonly allowedOrigins: '*' | readonly string[] | undefined;
  /** `Host` values an open hub answers besides loopback (undefined: loopback only). */
  readonly allowedHosts: readonly string[] | undefined;
  /** Port of the separate, token-less `/metrics` listener (undefined: none). */
  readonly metricsPort: number | undefined;
  /** Interface of that listener (default: `host`). */
  readonly metricsHost: string;
  /** The limits set by flag or env (the others keep `defaultLimits`). */
  readonly limits: Partial<HubLimits>;
  /** Whether appends must keep the lifecycle rules (see `HubConfig.lifecycle`). */
  readonly lifecycle: 'enforce' | 'off';
  /** Serve the web inspector at /inspect (`--no-inspector` turns it off). */
  readonly inspector: boolean;
  /** Presence TTL (ms); undefined: the hub's default. */
  readonly presenceTtlMs: number | undefined;
  /** Byte budget of the append validation cache; undefined: the hub's default (64 MiB). */
  readonly cacheBytes: number | undefined;
  /** The snapshot policy set by flag or env (the rest keeps the hub's defaults). */
  readonly snapshots: NonNullable<HubConfig['snapshots']>;
  /** Scanning at append (`--secrets`, `--secret-pattern`; see `HubConfig.secrets`). */
  readonly secrets: { readonly mode: 'off' | 'redact' | 'reject'; readonly patterns: readonly string[] };
  /** The archive (`--archive` and its policy flags); undefined: none. */
  readonly archive: ArchiveSettings | undefined;
}

export const serveUsage = `Usage: session-hub serve [options]

Starts a hub node: WebSocket protocol v1 on /v1/ws and the HTTP API on one port.
Environment: each variable named below is read as SESSION_HUB_<NAME> first (SESSION_HUB_PORT,
SESSION_HUB_REDIS_URL, SESSION_HUB_AUTH_SECRET, ...); the short <NAME> is an alias kept for compatibility.

Options:
  --port <n>           TCP port (env PORT; default 8080; 0 = any free port)
  --host <addr>        interface to bind (env HOST; default 127.0.0.1)
  --redis <url>        Redis URL, e.g. redis://127.0.0.1:6379 (env REDIS_URL). Without it the
                       memory engine is used: one process, nothing persisted.
  --redis-cluster <url,url,...>  Redis Cluster seed nodes, e.g. redis://:pass@10.0.0.1:7000,redis://10.0.0.2:7000
                       (env SESSION_HUB_REDIS_CLUSTER): sessions sharded over the masters
  --redis-sentinels <host:port,...>  Sentinels to ask for the master (env SESSION_HUB_REDIS_SENTINELS),
                       with --redis-sentinel-name <name> (env SESSION_HUB_REDIS_SENTINEL_NAME)
  --redis-wait-replicas <n>  acknowledge a commit only once n replicas have it (Redis WAIT; env
                       SESSION_HUB_REDIS_WAIT_REPLICAS; default 0)
${redisFlagsUsage}  --key-prefix <p>     prefix of every Redis key (env KEY_PREFIX; default sh:)
  --log-level <level>  trace, debug, info, warn, error, fatal, silent (env LOG_LEVEL; default info)
  --node-name <name>   name of this node in logs, metrics and welcome (env NODE_NAME)
  --allowed-origins <list>  browser origins that may open a WebSocket or call the HTTP API, comma-separated,
                       or * (env ALLOWED_ORIGINS; default: all with auth, loopback pages only when open)
  --allowed-hosts <list>    Host names an OPEN hub answers besides localhost/127.0.0.1/[::1], comma-separated
                       host or host:port (env SESSION_HUB_ALLOWED_HOSTS; DNS-rebinding defence; ignored with auth)
  --metrics-port <n>   also serve GET /metrics WITHOUT a token on this port (env SESSION_HUB_METRICS_PORT);
                       on the main port /metrics needs an admin token when auth is on
  --metrics-host <addr>  interface of the metrics listener (env SESSION_HUB_METRICS_HOST; default: --host)
  --lifecycle <mode>   enforce: refuse appends that break the turn/step/tool-call rules
                       (LIFECYCLE_VIOLATION); off: for logs of extension events only (env SESSION_HUB_LIFECYCLE;
                       default enforce)
  --no-inspector       do not serve the web inspector at /inspect (env SESSION_HUB_INSPECTOR=0)
  --cache-bytes <n>    byte budget of the append validation cache (env SESSION_HUB_CACHE_BYTES;
                       default 67108864 = 64 MiB)
  --secrets <mode>     scan appends for secrets (AWS keys, sk-..., GitHub tokens, bearer tokens, private-key
                       blocks): redact (replace each match by [redacted], audited), reject (SECRET_DETECTED,
                       nothing stored) or off (default; env SESSION_HUB_SECRETS)
  --secret-pattern <re>  one more pattern to scan for (repeatable, at most 32, 256 characters each, RE2 syntax:
                       run in linear time; no nested quantifiers, lookaround or backreferences)
  --presence-ttl-ms <n>  a watcher whose node died lapses after this long (env SESSION_HUB_PRESENCE_TTL_MS;
                       default 15000)
${snapshotFlagsUsage}${archiveFlagsUsage}
Retention (whole sessions deleted once idle past their rule; reads of one then answer SESSION_EXPIRED):
${retentionFlagsUsage}
Auth (JWT bearer tokens; without a key the hub runs OPEN: anyone may read and write every session):
  --auth-secret <s>         HS256 shared secret, >= 32 bytes (env AUTH_SECRET; prefer the env: argv is public)
  --auth-public-key <file>  PEM SPKI public key: RSA -> RS256, EC P-256 -> ES256 (env AUTH_PUBLIC_KEY_FILE)
  --auth-jwks <file>        JSON Web Key Set of public keys, picked by kid (env AUTH_JWKS_FILE)
  --auth-issuer <iss>       required iss claim (env AUTH_ISSUER)
  --auth-audience <aud>     required aud claim (env AUTH_AUDIENCE)
  --require-auth            refuse to start without a key (env REQUIRE_AUTH=1)
  -h, --help           show this help

Limits (positive integers; every one also as an env variable):
${limitFlagsUsage()}
`;

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

function parseLogLevel(text: string): string {
  if (!LOG_LEVELS.includes(text)) {
    throw new UsageError(`invalid log level "${text}" (one of ${LOG_LEVELS.join(', ')})`);
  }
  return text;
}

function parsePort(text: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) throw new UsageError(`invalid port "${text}"`);
  return port;
}

/** `*`, or a comma-separated list of origins such as `https://app.example.com` (scheme://host[:port]). */
function parseAllowedOrigins(text: string): '*' | readonly string[] {
  if (text.trim() === '*') return '*';
  const origins = text
    .split(',')
    .map((origin) => origin.trim())
    .filter((origin) => origin !== '');
  for (const origin of origins) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    if (parsed === undefined || parsed.origin !== origin.toLowerCase().replace(/\/+$/, '')) {
      throw new UsageError(`invalid origin "${origin}" in --allowed-origins (expected scheme://host[:port])`);
    }
  }
  if (origins.length === 0) throw new UsageError('--allowed-origins needs at least one origin, or *');
  return origins;
}

/** A comma-separated list of non-empty items. */
function parseList(flag: string): (text: string) => readonly string[] {
  return (text) => {
    const items = text
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== '');
    if (items.length === 0) throw new UsageError(`--${flag} needs at least one address`);
    return items;
  };
}

function parseWaitReplicas(text: string): number {
  const count = Number(text);
  if (!/^\d{1,3}$/.test(text) || count > 100)
    throw new UsageError(`invalid --redis-wait-replicas "${text}" (0 to 100)`);
  return count;
}

/** A comma-separated list of `host` or `host:port` values. */
function parseAllowedHosts(text: string): readonly string[] {
  const hosts = text
    .split(',')
    .map((host) => host.trim())
    .filter((host) => host !== '');
  for (const host of hosts) {
    if (parseHostHeader(host) === undefined) {
      throw new UsageError(`invalid host "${host}" in --allowed-hosts (expected host or host:port)`);
    }
  }
  if (hosts.length === 0) throw new UsageError('--allowed-hosts needs at least one host');
  return hosts;
}

function parseLimit(name: string, text: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value <= 0) {
    throw new UsageError(`invalid ${name} "${text}" (expected a positive integer)`);
  }
  return value;
}

function parseLifecycle(text: string): 'enforce' | 'off' {
  if (text !== 'enforce' && text !== 'off') throw new UsageError(`invalid lifecycle mode "${text}" (enforce or off)`);
  return text;
}

function parseMs(name: string, text: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < 100 || value > 3_600_000) {
    throw new UsageError(`invalid --${name} "${text}" (ms, 100 to 3600000)`);
  }
  return value;
}

/** The limits given by flag (`--max-frame-bytes`) or env (`SESSION_HUB_MAX_FRAME_BYTES`); flags win. */
function parseLimits(
  values: Readonly<Record<string, string | boolean | readonly string[] | undefined>>,
  env: Readonly<Record<string, string | undefined>>,
): Partial<HubLimits> {
  const limits: Partial<Record<keyof HubLimits, number>> = {};
  for (const { limit, flag, env: envName } of LIMIT_FLAGS) {
    const fromFlag = values[flag];
    const fromEnv = env[envName];
    if (typeof fromFlag === 'string') limits[limit] = parseLimit(`--${flag}`, fromFlag);
    else if (fromEnv !== undefined && fromEnv !== '') limits[limit] = parseLimit(envName, fromEnv);
  }
  return limits;
}

const limitOptions = Object.fromEntries(LIMIT_FLAGS.map(({ flag }) => [flag, { type: 'string' as const }]));

function optional<T>(text: string | undefined, parse: (text: string) => T): T | undefined {
  return text === undefined ? undefined : parse(text);
}

/** Parse `serve` arguments; returns 'help' for --help. Throws UsageError on bad input. */
export function parseServeArgs(
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): ServeOptions | 'help' {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...args],
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        redis: { type: 'string' },
        'redis-cluster': { type: 'string' },
        'redis-sentinels': { type: 'string' },
        'redis-sentinel-name': { type: 'string' },
        'redis-wait-replicas': { type: 'string' },
        ...REDIS_FLAG_OPTIONS,
        ...RETENTION_FLAG_OPTIONS,
        'key-prefix': { type: 'string' },
        'log-level': { type: 'string' },
        'node-name': { type: 'string' },
        'allowed-origins': { type: 'string' },
        'allowed-hosts': { type: 'string' },
        'metrics-port': { type: 'string' },
        'metrics-host': { type: 'string' },
        ...limitOptions,
        lifecycle: { type: 'string' },
        'no-inspector': { type: 'boolean' },
        'presence-ttl-ms': { type: 'string' },
        'cache-bytes': { type: 'string' },
        ...SNAPSHOT_FLAG_OPTIONS,
        secrets: { type: 'string' },
        'secret-pattern': { type: 'string', multiple: true },
        ...ARCHIVE_FLAG_OPTIONS,
        'auth-secret': { type: 'string' },
        'auth-public-key': { type: 'string' },
        'auth-jwks': { type: 'string' },
        'auth-issuer': { type: 'string' },
        'auth-audience': { type: 'string' },
        'require-auth': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  if (values.help === true) return 'help';
  // An empty environment value counts as unset, but an empty flag is a mistake (`--redis "$UNSET_VAR"`): taken
  // literally it would bind every interface (--host), connect to the default Redis (--redis) or drop the auth key.
  for (const [name, value] of Object.entries(values)) {
    if (value === '') throw new UsageError(`--${name} must not be empty`);
  }
  const nonEmpty = (value: string | undefined): string | undefined => (value === '' ? undefined : value);
  const auth = resolveAuthConfig(
    {
      authSecret: values['auth-secret'],
      authPublicKey: values['auth-public-key'],
      authJwks: values['auth-jwks'],
      authIssuer: values['auth-issuer'],
      authAudience: values['auth-audience'],
      requireAuth: values['require-auth'],
    },
    env,
  );
  if (!auth.ok) throw new UsageError(auth.error);
  const redisUrl = values.redis ?? nonEmpty(env['REDIS_URL']);
  const redisCluster = optional(
    values['redis-cluster'] ?? nonEmpty(env['SESSION_HUB_REDIS_CLUSTER']),
    parseList('redis-cluster'),
  );
  const redisSentinels = optional(
    values['redis-sentinels'] ?? nonEmpty(env['SESSION_HUB_REDIS_SENTINELS']),
    parseList('redis-sentinels'),
  );
  const redisSentinelName = values['redis-sentinel-name'] ?? nonEmpty(env['SESSION_HUB_REDIS_SENTINEL_NAME']);
  const redisTargets = [redisUrl, redisCluster, redisSentinels].filter((target) => target !== undefined);
  if (redisTargets.length > 1) {
    throw new UsageError('use one of --redis, --redis-cluster and --redis-sentinels');
  }
  if ((redisSentinels === undefined) !== (redisSentinelName === undefined)) {
    throw new UsageError('--redis-sentinels and --redis-sentinel-name go together');
  }
  const redisWaitReplicas = optional(
    values['redis-wait-replicas'] ?? nonEmpty(env['SESSION_HUB_REDIS_WAIT_REPLICAS']),
    parseWaitReplicas,
  );
  if (redisWaitReplicas !== undefined && redisTargets.length === 0) {
    throw new UsageError('--redis-wait-replicas needs a Redis (--redis, --redis-cluster or --redis-sentinels)');
  }
  const host = values.host ?? nonEmpty(env['HOST']) ?? '127.0.0.1';
  const redisFlags = parseRedisFlags(values, env, redisSentinels !== undefined, (message) => new UsageError(message));
  return {
    ...redisFlags,
    ...parseRetentionFlags(values, env, (message) => new UsageError(message)),
    port: parsePort(values.port ?? nonEmpty(env['PORT']) ?? '8080'),
    host,
    redisUrl,
    redisCluster,
    redisSentinels,
    redisSentinelName,
    redisWaitReplicas,
    keyPrefix: values['key-prefix'] ?? nonEmpty(env['KEY_PREFIX']),
    logLevel: parseLogLevel(values['log-level'] ?? nonEmpty(env['LOG_LEVEL']) ?? 'info'),
    nodeName: values['node-name'] ?? nonEmpty(env['NODE_NAME']),
    auth: auth.config,
    allowedOrigins: optional(values['allowed-origins'] ?? nonEmpty(env['ALLOWED_ORIGINS']), parseAllowedOrigins),
    allowedHosts: optional(values['allowed-hosts'] ?? nonEmpty(env['SESSION_HUB_ALLOWED_HOSTS']), parseAllowedHosts),
    metricsPort: optional(values['metrics-port'] ?? nonEmpty(env['SESSION_HUB_METRICS_PORT']), parsePort),
    metricsHost: values['metrics-host'] ?? nonEmpty(env['SESSION_HUB_METRICS_HOST']) ?? host,
    limits: parseLimits({ ...values, 'secret-pattern': undefined }, env),
    lifecycle: parseLifecycle(values.lifecycle ?? nonEmpty(env['SESSION_HUB_LIFECYCLE']) ?? 'enforce'),
    inspector: values['no-inspector'] !== true && !['0', 'false', 'no'].includes(env['SESSION_HUB_INSPECTOR'] ?? ''),
    cacheBytes: optional(values['cache-bytes'] ?? nonEmpty(env['SESSION_HUB_CACHE_BYTES']), (text) =>
      parseLimit('--cache-bytes', text),
    ),
    secrets: parseSecrets(values.secrets ?? nonEmpty(env['SESSION_HUB_SECRETS']) ?? 'off', values['secret-pattern']),
    presenceTtlMs: optional(values['presence-ttl-ms'] ?? nonEmpty(env['SESSION_HUB_PRESENCE_TTL_MS']), (text) =>
      parseMs('presence-ttl-ms', text),
    ),
    snapshots: parseSnapshotFlags(values, env, (message) => new UsageError(message)),
    archive: parseArchiveFlags(values, env, (message) => new UsageError(message)),
  };
}

function parseSecrets(mode: string, patterns: readonly string[] | undefined): ServeOptions['secrets'] {
  if (mode !== 'off' && mode !== 'redact' && mode !== 'reject') {
    throw new UsageError(`--secrets must be redact, reject or off, got ${JSON.stringify(mode)}`);
  }
  const list = patterns ?? [];
  if (list.length > MAX_SECRET_PATTERNS) throw new UsageError(`at most ${MAX_SECRET_PATTERNS} --secret-pattern`);
  for (const pattern of list) {
    const problem = secretPatternProblem(pattern);
    if (problem !== undefined) throw new UsageError(`--secret-pattern ${JSON.stringify(pattern)} ${problem}`);
  }
  if (mode === 'off' && list.length > 0) throw new UsageError('--secret-pattern goes with --secrets redact|reject');
  return { mode, patterns: list };
}
