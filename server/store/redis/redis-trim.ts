import { StoreDataError } from '../event-store.ts';
import { checkTrimRequest } from '../request-check.ts';
import type { TrimRequest, TrimResult } from '../trim.ts';
import type { RedisClient } from './redis-connection.ts';
import { sessionKeys } from './redis-keys.ts';
import { PRUNE_KEYS_SCRIPT, TRIM_SCRIPT } from './redis-trim-scripts.ts';
import { checkPruneRequest } from '../idempotency-prune-check.ts';
import {
  DEFAULT_PRUNE_COUNT,
  type IdempotencyPruneRequest,
  type IdempotencyPruneResult,
} from '../idempotency-prune.ts';

interface TrimCommands {
  shTrim(log: string, epoch: string, idempotency: string, expectedEpoch: string, beforeSeq: string): Promise<unknown>;
  shPruneKeys(idempotency: string, cursor: string, count: string, olderThan: string): Promise<unknown>;
}

/** Runs one Redis call, mapping its failure to the store's errors (`RedisStore`'s wrapper). */
export type RedisTrimCall = <T>(send: () => Promise<T>) => Promise<T>;

const STATUSES: readonly string[] = ['trimmed', 'conflict', 'beyond-head'] satisfies TrimResult['status'][];

/** `EventStore.trim` and `pruneIdempotencyKeys` of the Redis engine: one script each (redis-trim-scripts.ts). */
export class RedisTrimmer {
  readonly #redis: RedisClient & TrimCommands;
  readonly #prefix: string;
  readonly #call: RedisTrimCall;

  constructor(redis: RedisClient, prefix: string, call: RedisTrimCall) {
    redis.defineCommand('shTrim', { numberOfKeys: 3, lua: TRIM_SCRIPT });
    redis.defineCommand('shPruneKeys', { numberOfKeys: 1, lua: PRUNE_KEYS_SCRIPT });
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

  async pruneIdempotencyKeys(request: IdempotencyPruneRequest): Promise<IdempotencyPruneResult> {
    checkPruneRequest(request);
    const { idempotency } = sessionKeys(this.#prefix, request.sessionId);
    const count = String(request.count ?? DEFAULT_PRUNE_COUNT);
    const cursor = request.cursor === '' ? '0' : request.cursor;
    const reply = await this.#call(() =>
      this.#redis.shPruneKeys(idempotency, cursor, count, String(request.olderThan)),
    );
    if (!Array.isArray(reply) || reply.length !== 3 || typeof reply[1] !== 'number') {
      throw new StoreDataError("redis prune: the reply is not the prune script's");
    }
    const next = String(reply[0]);
    return { cursor: next === '0' ? '' : next, removed: reply[1], youngestKept: Number(reply[2]) };
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
