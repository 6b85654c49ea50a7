import { StoreUnavailableError } from '../event-store.ts';
import type { RedisClient } from './redis-connection.ts';
import type { RawStreamEntry } from './redis-entries.ts';
import type { SessionKeys } from './redis-keys.ts';

/**
 * The epoch (`''` when none) and the raw stream entries from `fromSeq`, read atomically through ioredis: `GET` and
 * `XRANGE` in one `MULTI`/`EXEC` (a Lua script doing the same made Redis convert every entry to Lua and back, which
 * cost twice the XRANGE itself). Errors are ioredis's (the store maps them).
 */
export async function readPageInMulti(
  redis: RedisClient,
  keys: SessionKeys,
  fromSeq: number,
  limit: number,
): Promise<{ epoch: string; entries: RawStreamEntry[] }> {
  const transaction = redis.multi().getBuffer(keys.epoch).xrangeBuffer(keys.log, `${fromSeq}-0`, '+', 'COUNT', limit);
  let results: [Error | null, unknown][] | null;
  try {
    results = await transaction.exec();
  } catch (error) {
    // EXECABORT: a command was refused while queued (LOADING, BUSY...); report the refusal itself.
    throw (error as { previousErrors?: unknown[] }).previousErrors?.[0] ?? error;
  }
  if (results === null) throw new StoreUnavailableError('redis read: the transaction was discarded');
  for (const [error] of results) if (error !== null) throw error;
  const [rawEpoch, entries] = results.map(([, result]) => result) as [Buffer | null, RawStreamEntry[]];
  return { epoch: rawEpoch === null ? '' : rawEpoch.toString(), entries };
}
