import { StoreDataError } from '../event-store.ts';
import { checkTrimRequest } from '../request-check.ts';
import type { TrimRequest, TrimResult } from '../trim.ts';
import type { RedisClient } from './redis-connection.ts';
import { sessionKeys } from './redis-keys.ts';
import { TRIM_SCRIPT } from './redis-trim-scripts.ts';

interface TrimCommands {
  shTrim(log: string, epoch: string, idempotency: string, expectedEpoch: string, beforeSeq: string): Promise<unknown>;
}

/** Runs one Redis call, mapping its failure to the store's errors (`RedisStore`'s wrapper). */
export type RedisTrimCall = <T>(send: () => Promise<T>) => Promise<T>;

const STATUSES: readonly string[] = ['trimmed', 'conflict', 'beyond-head'] satisfies TrimResult['status'][];

/** `EventStore.trim` of the Redis engine: one script (redis-trim-scripts.ts). */
export class RedisTrimmer {
  readonly #redis: RedisClient & TrimCommands;
  readonly #prefix: string;
  readonly #call: RedisTrimCall;

  constructor(redis: RedisClient, prefix: string, call: RedisTrimCall) {
    redis.defineCommand('shTrim', { numberOfKeys: 3, lua: TRIM_SCRIPT });
    this.#redis = redis as RedisClient & TrimCommands;
    this.#prefix = prefix;
    this.#call = call;
  }

  async trim(request: TrimRequest): Promise<TrimResult> {
    checkTrimRequest(request);
    const keys = sessionKeys(this.#prefix, request.sessionId);
    const reply = await this.#call(() =>
      this.#redis.shTrim(keys.log, keys.epoch, keys.idempotency, request.epoch, String(request.beforeSeq)),
    );
    if (!Array.isArray(reply) || reply.length !== 5 || !STATUSES.includes(String(reply[0]))) {
      throw new StoreDataError("redis trim: the reply is not the trim script's");
    }
    const [status, epoch, base, length, removed] = reply as [TrimResult['status'], string, number, number, number];
    return { status, epoch, firstSeq: base, headSeq: length - 1, removed };
  }
}

/**
 * A session's base (first seq its stream holds) from the value of field '' of its idempotency hash: absent or ''
 * is 0 (never trimmed). Anything but a decimal safe integer is `StoreDataError`.
 */
export function parseBase(value: string | Buffer | null | undefined): number {
  if (value === null || value === undefined || value.length === 0) return 0;
  const text = typeof value === 'string' ? value : value.toString('latin1');
  const base = Number(text);
  if (!/^(0|[1-9][0-9]{0,15})$/.test(text) || !Number.isSafeInteger(base)) {
    throw new StoreDataError(`redis: bad first seq ${text.slice(0, 40)} in the idempotency hash`);
  }
  return base;
}
