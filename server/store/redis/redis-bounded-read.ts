import { StoreUnavailableError, type StoredPage } from '../event-store.ts';
import type { RedisClient } from './redis-connection.ts';
import { streamEntryParts, type RawStreamEntry } from './redis-entries.ts';
import type { SessionKeys } from './redis-keys.ts';
import { BOUNDED_READ_SCRIPT } from './redis-bounded-read-scripts.ts';
import { parseBase } from './redis-trim.ts';
import { checkNotTrimmed } from '../trimmed-error.ts';

interface BoundedReadCommands {
  shReadBoundedBuffer(
    epoch: string,
    log: string,
    idempotency: string,
    fromSeq: string,
    limit: string,
    maxBytes: string,
  ): Promise<unknown>;
}

/**
 * Pages bounded by bytes read through ioredis (`BOUNDED_READ_SCRIPT`): on a Cluster, over TLS, with the raw reader
 * off, and when a raw reply outgrew its cap (read again here, cut by Redis itself). Errors are ioredis's (the
 * store maps them).
 */
export class BoundedPageReader {
  readonly #redis: RedisClient & BoundedReadCommands;

  constructor(redis: RedisClient) {
    redis.defineCommand('shReadBounded', { numberOfKeys: 3, lua: BOUNDED_READ_SCRIPT });
    this.#redis = redis as RedisClient & BoundedReadCommands;
  }

  /** The page from `fromSeq`: at most `limit` events, at most `maxBytes` of bodies (one event at least). */
  async read(
    keys: SessionKeys,
    sessionId: string,
    fromSeq: number,
    limit: number,
    maxBytes: number,
  ): Promise<StoredPage> {
    const reply = await this.#redis.shReadBoundedBuffer(
      keys.epoch,
      keys.log,
      keys.idempotency,
      String(fromSeq),
      String(limit),
      String(maxBytes),
    );
    if (!Array.isArray(reply) || reply.length !== 4 || !Buffer.isBuffer(reply[0]) || !Array.isArray(reply[1])) {
      // Not the script's answer (a connection whose replies went astray): fail like a lost connection.
      throw new StoreUnavailableError(`redis read: the reply of session ${sessionId}'s read is not the script's`);
    }
    const [rawEpoch, entries, cut, base] = reply as [Buffer, RawStreamEntry[], number, Buffer | null];
    const epoch = rawEpoch.toString();
    if (epoch === '') return { epoch: undefined, firstSeq: fromSeq, bodies: [], times: [] };
    checkNotTrimmed(sessionId, fromSeq, parseBase(base), epoch);
    const { bodies, times } = streamEntryParts(sessionId, fromSeq, entries);
    return cut === 1
      ? { epoch, firstSeq: fromSeq, bodies, times, truncated: true }
      : { epoch, firstSeq: fromSeq, bodies, times };
  }
}
