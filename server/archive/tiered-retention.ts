import type {
  ExpireRequest,
  ExpireResult,
  ExpiryStatus,
  RetentionStore,
  SessionActivity,
  SessionScanPage,
} from '../store/retention-store.ts';
import type { ArchiveBackend } from './archive-backend.ts';

/**
 * Retention over both tiers (docs/operations.md, "Retention"): the hot store's, except that `expire`
 * - tells a session whose hot log holds no event (archived and trimmed to nothing) by the archive's last event: it
 *   is idle when that event is, and expires (race-free: the hot script still refuses if an event arrived meanwhile);
 * - deletes the archived copy of a session it expired (a failure rejects: the sweeper counts it and logs it; the
 *   session stays expired, and its cold copy is deleted by the next sweep that finds it, or by `rm`).
 */
export class TieredRetention implements RetentionStore {
  readonly #hot: RetentionStore;
  readonly #archive: ArchiveBackend;

  constructor(hot: RetentionStore, archive: ArchiveBackend) {
    this.#hot = hot;
    this.#archive = archive;
  }

  status(sessionId: string): Promise<ExpiryStatus> {
    return this.#hot.status(sessionId);
  }

  activity(sessionId: string): Promise<SessionActivity | undefined> {
    return this.#hot.activity(sessionId);
  }

  async expire(sessionId: string, request: ExpireRequest): Promise<ExpireResult> {
    let result = await this.#hot.expire(sessionId, request);
    const { idleSince } = request;
    if (result.status === 'active' && result.lastActivity === undefined && idleSince !== undefined) {
      const cold = await this.#archive.describe(sessionId);
      if (cold !== undefined && cold.epoch === result.epoch && cold.lastTime <= idleSince) {
        result = await this.#hot.expire(sessionId, { ...request, expectedEpoch: cold.epoch, emptyIsIdle: true });
        if (result.status === 'expired') result = { ...result, lastActivity: cold.lastTime };
      }
    }
    if (result.status === 'expired') await this.#archive.delete(sessionId);
    return result;
  }

  scan(cursor: string, count: number): Promise<SessionScanPage> {
    return this.#hot.scan(cursor, count);
  }

  lease(owner: string, ttlMs: number): Promise<boolean> {
    return this.#hot.lease(owner, ttlMs);
  }

  release(owner: string): Promise<void> {
    return this.#hot.release(owner);
  }
}
