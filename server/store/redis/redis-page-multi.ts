import type { ChainableCommander } from 'ioredis';
import { StoreUnavailableError } from '../event-store.ts';
import type { RedisClient } from './redis-connection.ts';
import type { RawStreamEntry } from './redis-entries.ts';
import { BASE_FIELD, type SessionKeys } from './redis-keys.ts';
import { parseBase } from './redis-trim.ts';

/**
 * The epoch (`''` when none), the raw stream entries from `fromSeq` and the base (the first seq the stream holds,
 * redis-trim.ts), read atomically through ioredis: `GET`, `XRANGE` and `HGET` in one `MULTI`/`EXEC` (a Lua script
 * doing the same made Redis convert every entry to Lua and back, which cost twice the XRANGE itself). Errors are
 * ioredis's (the store maps them).
 */
export async function readPageInMulti(
  redis: RedisClient,
  keys: SessionKeys,
  fromSeq: number,
  limit: number,
): Promise<{ epoch: string; entries: RawStreamEntry[]; base: number }> {
  const transaction = redis
    .multi()
    .getBuffer(keys.epoch)
    .xrangeBuffer(keys.log, `${fromSeq}-0`, '+', 'COUNT', limit)
    .hgetBuffer(keys.idempotency, BASE_FIELD);
  const [rawEpoch, entries, base] = (await execute(transaction)) as [Buffer | null, RawStreamEntry[], Buffer | null];
  return { epoch: rawEpoch === null ? '' : rawEpoch.toString(), entries, base: parseBase(base) };
}

/**
 * The raw stream entries from `fromSeq`, the base and the epoch (undefined when none), for `EventStore.read` (which reads
 * the log whatever its epoch): `XRANGE`, `HGET`, then `GET`, pipelined. Not atomic, and it need not be: a trim only
 * raises the base, so one that comes between the two shows as a base above `fromSeq` (GONE), and one before the
 * `XRANGE` too; the epoch only names the session in a refusal (`StoreTrimmedError.epoch`: what a reader knows of
 * that epoch, a fork's lineage, holds). Errors are ioredis's (the store maps them).
 */
export async function readEntries(
  redis: RedisClient,
  keys: SessionKeys,
  fromSeq: number,
  limit: number,
): Promise<{ entries: RawStreamEntry[]; base: number; epoch: string | undefined }> {
  const pipeline = redis
    .pipeline()
    .xrangeBuffer(keys.log, `${fromSeq}-0`, '+', 'COUNT', limit)
    .hgetBuffer(keys.idempotency, BASE_FIELD)
    .get(keys.epoch);
  const [entries, base, epoch] = (await execute(pipeline)) as [RawStreamEntry[], Buffer | null, string | null];
  return { entries, base: parseBase(base), epoch: epoch ?? undefined };
}

async function execute(transaction: ChainableCommander): Promise<unknown[]> {
  let results: [Error | null, unknown][] | null;
  try {
    results = await transaction.exec();
  } catch (error) {
    // EXECABORT: a command was refused while queued (LOADING, BUSY...); report the refusal itself.
    throw (error as { previousErrors?: unknown[] }).previousErrors?.[0] ?? error;
  }
  if (results === null) throw new StoreUnavailableError('redis read: the transaction was discarded');
  // A command that failed fails the read (the first one: a pipeline's replies after it are of no use).
  for (const [error] of results) if (error !== null) throw error;
  return results.map(([, result]) => result);
}
