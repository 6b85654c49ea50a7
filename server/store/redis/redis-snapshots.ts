import { encodeSnapshot, toSnapshotRead } from '../codec/snapshot-codec.ts';
import { StoreDataError } from '../event-store.ts';
import { validateSessionId } from '../session-id.ts';
import type { SessionSnapshot, SnapshotPutResult, SnapshotRead, SnapshotStore } from '../snapshot-store.ts';
import type { RedisClient } from './redis-connection.ts';
import { sessionKeys } from './redis-keys.ts';
import { LEASE_RELEASE_SCRIPT, SNAPSHOT_GET_SCRIPT, SNAPSHOT_PUT_SCRIPT } from './redis-snapshot-scripts.ts';

interface SnapshotCommands {
  shSnapGetBuffer(log: string, epoch: string, snapshot: string, idempotency: string): Promise<unknown>;
  shSnapPut(
    log: string,
    epoch: string,
    snapshot: string,
    idempotency: string,
    ...args: (string | Buffer)[]
  ): Promise<unknown>;
  shLeaseRelease(lease: string, owner: string): Promise<unknown>;
}

/** Runs one Redis call, mapping its failure to the store's errors (`RedisStore`'s wrapper). */
export type RedisCall = <T>(operation: string, send: () => Promise<T>) => Promise<T>;

/** The Redis engine's snapshots: one hash per session beside its stream, written and read by Lua scripts. */
export class RedisSnapshots implements SnapshotStore {
  readonly #redis: RedisClient & SnapshotCommands;
  readonly #prefix: string;
  readonly #call: RedisCall;

  constructor(redis: RedisClient, prefix: string, call: RedisCall) {
    redis.defineCommand('shSnapGet', { numberOfKeys: 4, lua: SNAPSHOT_GET_SCRIPT });
    redis.defineCommand('shSnapPut', { numberOfKeys: 4, lua: SNAPSHOT_PUT_SCRIPT });
    redis.defineCommand('shLeaseRelease', { numberOfKeys: 1, lua: LEASE_RELEASE_SCRIPT });
    this.#redis = redis as RedisClient & SnapshotCommands;
    this.#prefix = prefix;
    this.#call = call;
  }

  async get(sessionId: string): Promise<SnapshotRead> {
    const keys = this.#keys(sessionId);
    const reply = await this.#call('snapshot read', () =>
      this.#redis.shSnapGetBuffer(keys.log, keys.epoch, keys.snapshot, keys.idempotency),
    );
    if (!Array.isArray(reply) || reply.length !== 3) throw new StoreDataError('redis snapshot read: unexpected reply');
    const [epoch, length, value] = reply as [Buffer, number, Buffer | null];
    return toSnapshotRead(epoch.toString(), Number(length) - 1, value ?? undefined);
  }

  async put(sessionId: string, snapshot: SessionSnapshot): Promise<SnapshotPutResult> {
    const keys = this.#keys(sessionId);
    const value = encodeSnapshot(snapshot);
    const reply = await this.#call('snapshot write', () =>
      this.#redis.shSnapPut(
        keys.log,
        keys.epoch,
        keys.snapshot,
        keys.idempotency,
        snapshot.epoch,
        String(snapshot.seq),
        value,
      ),
    );
    return reply === 'written' ? 'written' : 'stale';
  }

  async lease(sessionId: string, owner: string, ttlMs: number): Promise<boolean> {
    const keys = this.#keys(sessionId);
    const reply = await this.#call('snapshot lease', () =>
      this.#redis.set(keys.snapshotLease, owner, 'PX', Math.max(1, Math.ceil(ttlMs)), 'NX'),
    );
    return reply === 'OK';
  }

  async release(sessionId: string, owner: string): Promise<void> {
    const keys = this.#keys(sessionId);
    await this.#call('snapshot lease', () => this.#redis.shLeaseRelease(keys.snapshotLease, owner));
  }

  #keys(sessionId: string): ReturnType<typeof sessionKeys> {
    validateSessionId(sessionId);
    return sessionKeys(this.#prefix, sessionId);
  }
}
