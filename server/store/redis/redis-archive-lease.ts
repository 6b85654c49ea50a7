import type { ArchiveLeaseStore } from '../archive-lease.ts';
import { checkLeaseRequest } from '../archive-lease-check.ts';
import type { RedisClient } from './redis-connection.ts';
import { sessionKeys } from './redis-keys.ts';
import type { RedisCall } from './redis-snapshots.ts';
import { ARCHIVE_LEASE_RELEASE_SCRIPT, ARCHIVE_LEASE_RENEW_SCRIPT } from './redis-archive-lease-scripts.ts';

interface LeaseCommands {
  shArchLeaseRenew(lease: string, token: string, ttlMs: string): Promise<unknown>;
  shArchLeaseRelease(lease: string, token: string): Promise<unknown>;
}

/** The archive lease on Redis: `{<id>}:archlease`, taken with `SET NX PX`, renewed and released by its token. */
export class RedisArchiveLease implements ArchiveLeaseStore {
  readonly #redis: RedisClient & LeaseCommands;
  readonly #prefix: string;
  readonly #call: RedisCall;

  constructor(redis: RedisClient, prefix: string, call: RedisCall) {
    redis.defineCommand('shArchLeaseRenew', { numberOfKeys: 1, lua: ARCHIVE_LEASE_RENEW_SCRIPT });
    redis.defineCommand('shArchLeaseRelease', { numberOfKeys: 1, lua: ARCHIVE_LEASE_RELEASE_SCRIPT });
    this.#redis = redis as RedisClient & LeaseCommands;
    this.#prefix = prefix;
    this.#call = call;
  }

  async acquire(sessionId: string, token: string, ttlMs: number): Promise<boolean> {
    checkLeaseRequest(sessionId, token, ttlMs);
    const key = sessionKeys(this.#prefix, sessionId).archiveLease;
    const reply = await this.#call('archive lease', () => this.#redis.set(key, token, 'PX', ttlMs, 'NX'));
    return reply === 'OK';
  }

  async renew(sessionId: string, token: string, ttlMs: number): Promise<boolean> {
    checkLeaseRequest(sessionId, token, ttlMs);
    const key = sessionKeys(this.#prefix, sessionId).archiveLease;
    const reply = await this.#call('archive lease', () => this.#redis.shArchLeaseRenew(key, token, String(ttlMs)));
    return reply === 1;
  }

  async release(sessionId: string, token: string): Promise<boolean> {
    checkLeaseRequest(sessionId, token);
    const key = sessionKeys(this.#prefix, sessionId).archiveLease;
    const reply = await this.#call('archive lease', () => this.#redis.shArchLeaseRelease(key, token));
    return reply === 1;
  }
}
