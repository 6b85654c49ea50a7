/**
 * The `serve` flags of the Redis engine added after the first ones (cli-args.ts keeps --redis, --redis-cluster,
 * --redis-sentinels, --redis-sentinel-name, --redis-wait-replicas): Sentinel logins and the catch-up reader.
 */

/** `parseArgs` options of these flags. */
export const REDIS_FLAG_OPTIONS = {
  'redis-sentinel-password': { type: 'string' },
  'redis-master-password': { type: 'string' },
  'no-redis-raw-reads': { type: 'boolean' },
} as const;

export const redisFlagsUsage = `  --redis-sentinel-password <p>  the sentinels' own password, when they have a requirepass
                       (env SESSION_HUB_REDIS_SENTINEL_PASSWORD)
  --redis-master-password <p>  with --redis-sentinels: the master's (and replicas') password
                       (env SESSION_HUB_REDIS_MASTER_PASSWORD)
  --no-redis-raw-reads  read catch-up pages through ioredis (MULTI) instead of the raw RESP reader
                       (env SESSION_HUB_REDIS_RAW_READS=0)
`;

export interface RedisFlagOptions {
  /** The sentinels' own password (`--redis-sentinel-password`). */
  readonly redisSentinelPassword: string | undefined;
  /** The master's password behind Sentinel (`--redis-master-password`). */
  readonly redisMasterPassword: string | undefined;
  /** Whether catch-up pages use the raw RESP reader (`--no-redis-raw-reads` turns it off). */
  readonly redisRawReads: boolean;
}

type Values = {
  readonly 'redis-sentinel-password'?: string | undefined;
  readonly 'redis-master-password'?: string | undefined;
  readonly 'no-redis-raw-reads'?: boolean | undefined;
};

const FALSE_WORDS: ReadonlySet<string> = new Set(['0', 'false', 'no', 'off']);

/** These flags (over their environment variables); `usage` builds the usage error of a misplaced one. */
export function parseRedisFlags(
  values: Values,
  env: Readonly<Record<string, string | undefined>>,
  hasSentinels: boolean,
  usage: (message: string) => Error,
): RedisFlagOptions {
  const nonEmpty = (value: string | undefined): string | undefined => (value === '' ? undefined : value);
  const redisSentinelPassword =
    values['redis-sentinel-password'] ?? nonEmpty(env['SESSION_HUB_REDIS_SENTINEL_PASSWORD']);
  const redisMasterPassword = values['redis-master-password'] ?? nonEmpty(env['SESSION_HUB_REDIS_MASTER_PASSWORD']);
  if (!hasSentinels && (redisSentinelPassword !== undefined || redisMasterPassword !== undefined)) {
    throw usage(
      '--redis-sentinel-password and --redis-master-password go with --redis-sentinels ' +
        '(with --redis or --redis-cluster the password is in the URL)',
    );
  }
  const rawReads = values['no-redis-raw-reads'] !== true && !FALSE_WORDS.has(env['SESSION_HUB_REDIS_RAW_READS'] ?? '');
  return { redisSentinelPassword, redisMasterPassword, redisRawReads: rawReads };
}
