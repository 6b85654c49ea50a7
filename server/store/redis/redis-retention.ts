import { StoreDataError } from '../event-store.ts';
import {
  checkExpireRequest,
  type ExpireRequest,
  type ExpireResult,
  type ExpiryStatus,
  type RetentionStore,
  type SessionActivity,
  type SessionScanPage,
} from '../retention-store.ts';
import { validateSessionId } from '../session-id.ts';
import type { RedisClient } from './redis-connection.ts';
import { keysWithCount, sessionDataKeys, sessionKeys, type SessionKeys } from './redis-keys.ts';
import { withPublishCommand } from './redis-scripts.ts';
import { LEASE_RELEASE_SCRIPT } from './redis-snapshot-scripts.ts';
import type { RedisCall } from './redis-snapshots.ts';
import { SessionScan } from './redis-session-scan.ts';
import { ACTIVITY_SCRIPT, EXPIRE_SCRIPT, EXPIRY_STATUS_SCRIPT, SWEEP_LEASE_SCRIPT } from './redis-retention-scripts.ts';

interface RetentionCommands {
  shExpire(...args: (string | number)[]): Promise<unknown>;
  shExpiryStatus(epoch: string, tombstone: string): Promise<unknown>;
  shActivity(epoch: string, log: string, idempotency: string): Promise<unknown>;
  shSweepLease(lease: string, owner: string, ttlMs: number): Promise<unknown>;
  shSweepRelease(lease: string, owner: string): Promise<unknown>;
}

/** The sweep lease: one key for the whole store (not a session's, so no hash tag). */
export function sweepLeaseKey(keyPrefix: string): string {
  return `${keyPrefix}retention:sweep`;
}

/** A time field of a script reply ('' when none). */
function timeOf(text: unknown): number | undefined {
  if (text === '' || text === null || text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new StoreDataError(`redis retention: bad time ${String(text)}`);
  return value;
}

/** The Redis engine's retention: tombstones beside the sessions, scripts that expire a session atomically. */
export class RedisRetention implements RetentionStore {
  readonly #redis: RedisClient & RetentionCommands;
  readonly #prefix: string;
  readonly #call: RedisCall;
  readonly #scan: SessionScan;

  /** `publish`: `PUBLISH` on one Redis, `SPUBLISH` on a Cluster (as the store's other scripts). */
  constructor(redis: RedisClient, prefix: string, publish: 'PUBLISH' | 'SPUBLISH', call: RedisCall) {
    redis.defineCommand('shExpire', { lua: withPublishCommand(EXPIRE_SCRIPT, publish) });
    redis.defineCommand('shExpiryStatus', { numberOfKeys: 2, lua: EXPIRY_STATUS_SCRIPT });
    redis.defineCommand('shActivity', { numberOfKeys: 3, lua: ACTIVITY_SCRIPT });
    redis.defineCommand('shSweepLease', { numberOfKeys: 1, lua: SWEEP_LEASE_SCRIPT });
    redis.defineCommand('shSweepRelease', { numberOfKeys: 1, lua: LEASE_RELEASE_SCRIPT });
    this.#redis = redis as RedisClient & RetentionCommands;
    this.#prefix = prefix;
    this.#call = call;
    this.#scan = new SessionScan(redis, prefix, (send) => call('retention scan', send));
  }

  async status(sessionId: string): Promise<ExpiryStatus> {
    const keys = this.#keys(sessionId);
    const reply = await this.#call('expiry status', () => this.#redis.shExpiryStatus(keys.epoch, keys.expired));
    if (!Array.isArray(reply) || reply.length !== 2) throw new StoreDataError('redis expiry status: unexpected reply');
    const [epoch, expired] = reply as [string, string];
    const expiredAt = timeOf(expired);
    return epoch === '' && expiredAt !== undefined ? { status: 'expired', expiredAt } : { status: 'not-expired' };
  }

  async activity(sessionId: string): Promise<SessionActivity | undefined> {
    const keys = this.#keys(sessionId);
    const reply = await this.#call('activity', () => this.#redis.shActivity(keys.epoch, keys.log, keys.idempotency));
    if (!Array.isArray(reply) || reply.length !== 3) throw new StoreDataError('redis activity: unexpected reply');
    const [epoch, length, time] = reply as [string, number, string];
    if (epoch === '') return undefined;
    return { epoch, headSeq: Number(length) - 1, lastActivity: timeOf(time) };
  }

  async expire(sessionId: string, request: ExpireRequest): Promise<ExpireResult> {
    checkExpireRequest(request);
    const keys = this.#keys(sessionId);
    const args = [
      ...keysWithCount([
        keys.epoch,
        keys.log,
        keys.expired,
        keys.idempotency,
        ...sessionDataKeys(keys).filter((key) => key !== keys.idempotency),
        keys.lineage,
        keys.forks, // last: a session with forks is kept (they read their prefix from it)
      ]),
      request.expectedEpoch ?? '',
      request.idleSince === undefined ? '' : String(request.idleSince),
      String(request.expiredAt),
      String(request.tombstoneTtlMs),
      keys.channel,
      request.emptyIsIdle === true ? '1' : '0',
    ];
    const reply = await this.#call('expire', () => this.#redis.shExpire(...args));
    if (!Array.isArray(reply) || reply.length !== 4) throw new StoreDataError('redis expire: unexpected reply');
    const [status, epoch, length, time] = reply as [string, string, string, string];
    if (status === 'missing') return { status };
    if (status === 'conflict') return { status, epoch };
    const lastActivity = timeOf(time);
    if (status === 'active') return { status, epoch, lastActivity };
    if (status === 'expired') return { status, epoch, headSeq: Number(length) - 1, lastActivity };
    throw new StoreDataError(`redis expire: unexpected script reply ${status}`);
  }

  async scan(cursor: string, count: number): Promise<SessionScanPage> {
    return this.#scan.step(cursor, Math.max(1, Math.min(10_000, Math.floor(count))));
  }

  async lease(owner: string, ttlMs: number): Promise<boolean> {
    const ttl = Math.max(1, Math.ceil(ttlMs));
    const reply = await this.#call('sweep lease', () =>
      this.#redis.shSweepLease(sweepLeaseKey(this.#prefix), owner, ttl),
    );
    return Number(reply) === 1;
  }

  async release(owner: string): Promise<void> {
    await this.#call('sweep lease', () => this.#redis.shSweepRelease(sweepLeaseKey(this.#prefix), owner));
  }

  #keys(sessionId: string): SessionKeys {
    validateSessionId(sessionId);
    return sessionKeys(this.#prefix, sessionId);
  }
}
