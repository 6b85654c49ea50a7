import { StoreUnavailableError } from '../event-store.ts';
import type { RedisClient } from './redis-connection.ts';

/** The command connection with the commit script defined on it. */
type CommitConnection = RedisClient & { shCommit(...args: (string | Buffer)[]): Promise<unknown> };

/**
 * Commits acknowledged once `replicas` replicas have them (Redis `WAIT`). `WAIT` blocks the connection that sends
 * it until the replicas have everything that connection wrote before it, so on one master (one Redis, Sentinel) one
 * `WAIT` queued behind the commits sent in the same tick covers all of them: concurrent commits share one replica
 * round trip instead of queueing a `WAIT` each behind each other. On a cluster each commit and its `WAIT` go in one
 * pipeline, so both reach the session's master.
 */
export class ReplicaWait {
  readonly #redis: CommitConnection;
  readonly #replicas: number;
  readonly #timeoutMs: number;
  readonly #coalesce: boolean;
  #next: Promise<number> | undefined;

  /** `timeoutMs`: how long a `WAIT` may block the connection. `coalesce`: false on a cluster. */
  constructor(redis: CommitConnection, replicas: number, timeoutMs: number, coalesce: boolean) {
    this.#redis = redis;
    this.#replicas = replicas;
    this.#timeoutMs = timeoutMs;
    this.#coalesce = coalesce;
  }

  /** Run the commit script, then wait for the replicas. Fewer in time: `StoreUnavailableError`, `maybeCommitted`. */
  async commit(args: (string | Buffer)[]): Promise<unknown> {
    const [reply, replicas] = this.#coalesce ? await this.#commitThenSharedWait(args) : await this.#pipelined(args);
    const committed = Array.isArray(reply) && reply[0] === 'committed';
    if (committed && replicas < this.#replicas) {
      throw new StoreUnavailableError(
        `redis commit: ${replicas} of ${this.#replicas} replicas acknowledged it within ${this.#timeoutMs} ms`,
        { maybeCommitted: true },
      );
    }
    return reply;
  }

  #commitThenSharedWait(args: (string | Buffer)[]): Promise<[unknown, number]> {
    const commit = this.#redis.shCommit(...args);
    // Asked in the same synchronous step as the commit: the shared WAIT is sent after it on the connection.
    this.#next ??= new Promise<void>((resolve) => process.nextTick(resolve)).then(async () => {
      // Commits sent from here on are not covered by this WAIT (it may already be on its way): they get a new one.
      this.#next = undefined;
      return Number(await this.#redis.call('WAIT', this.#replicas, this.#timeoutMs));
    });
    return Promise.all([commit, this.#next]);
  }

  async #pipelined(args: (string | Buffer)[]): Promise<[unknown, number]> {
    const pipeline = this.#redis.pipeline() as ReturnType<RedisClient['pipeline']> & {
      shCommit(...args: (string | Buffer)[]): unknown;
    };
    pipeline.shCommit(...args);
    pipeline.call('WAIT', this.#replicas, this.#timeoutMs);
    const results = (await pipeline.exec()) ?? [];
    const [[commitError, reply] = [null, undefined], [waitError, replicas] = [null, 0]] = results;
    if (commitError !== null) throw commitError;
    if (waitError !== null) throw waitError;
    return [reply, Number(replicas)];
  }
}
