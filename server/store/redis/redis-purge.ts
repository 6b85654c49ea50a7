import type { Redis } from 'ioredis';

/** What `purgeRedisPersistence` did on one Redis server. */
export interface PurgeReport {
  /** True when the server keeps an AOF (`appendonly yes`) and it was rewritten. */
  readonly aofRewritten: boolean;
  /** True when the RDB file was written again (`BGSAVE`). */
  readonly rdbSaved: boolean;
}

/** How long to wait for each background job, and how often to look. */
export interface PurgeOptions {
  readonly timeoutMs?: number;
  readonly pollMs?: number;
}

function infoField(info: string, name: string): string | undefined {
  return new RegExp(`^${name}:(.*)\\r?$`, 'm').exec(info)?.[1]?.trim();
}

async function persistence(redis: Redis): Promise<string> {
  return redis.info('persistence');
}

async function waitFor(
  redis: Redis,
  done: (info: string) => boolean,
  what: string,
  { timeoutMs = 600_000, pollMs = 50 }: PurgeOptions,
): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const info = await persistence(redis);
    if (done(info)) return info;
    if (Date.now() > deadline) throw new Error(`redis purge: ${what} did not finish within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

/**
 * Make one Redis server's files forget what was overwritten or deleted (a redaction's original bodies, a deleted
 * session): rewrite the append-only file (`BGREWRITEAOF`: the new base holds only the current data, and Redis
 * deletes the old base and increment files), then write the RDB file again (`BGSAVE`), waiting for each to finish
 * and checking that it succeeded. Replicas keep their own files: run it on each of them too. Throws when a job
 * fails or does not finish in time.
 */
export async function purgeRedisPersistence(redis: Redis, options: PurgeOptions = {}): Promise<PurgeReport> {
  const before = await persistence(redis);
  const aof = infoField(before, 'aof_enabled') === '1';
  if (aof) {
    await waitFor(
      redis,
      (info) => infoField(info, 'aof_rewrite_in_progress') === '0',
      'a running AOF rewrite',
      options,
    );
    const rewrites = Number(infoField(await persistence(redis), 'aof_rewrites') ?? '0');
    await redis.call('BGREWRITEAOF');
    const after = await waitFor(
      redis,
      (info) =>
        infoField(info, 'aof_rewrite_in_progress') === '0' &&
        infoField(info, 'aof_rewrite_scheduled') === '0' &&
        Number(infoField(info, 'aof_rewrites') ?? '0') > rewrites,
      'the AOF rewrite',
      options,
    );
    if (infoField(after, 'aof_last_bgrewrite_status') !== 'ok') throw new Error('redis purge: the AOF rewrite failed');
  }
  const saves = Number(infoField(await persistence(redis), 'rdb_saves') ?? '0');
  await redis.call('BGSAVE', 'SCHEDULE');
  const saved = await waitFor(
    redis,
    (info) => infoField(info, 'rdb_bgsave_in_progress') === '0' && Number(infoField(info, 'rdb_saves') ?? '0') > saves,
    'the RDB save',
    options,
  );
  if (infoField(saved, 'rdb_last_bgsave_status') !== 'ok') throw new Error('redis purge: the RDB save failed');
  return { aofRewritten: aof, rdbSaved: true };
}
