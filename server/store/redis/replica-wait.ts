import { createHash } from 'node:crypto';
import { Cluster, type Redis } from 'ioredis';
import { StoreUnavailableError } from '../event-store.ts';
import { dropOnBadReplies, type RedisClient } from './redis-connection.ts';

/** The command connection with the commit script defined on it. */
type CommitConnection = RedisClient & { shCommit(...args: (string | Buffer)[]): Promise<unknown> };

const isCommitted = (reply: unknown): boolean => Array.isArray(reply) && reply[0] === 'committed';

/** The commit script, as the replicated commits' own connection sends it (`EVALSHA`, loaded when missing). */
export interface CommitScript {
  readonly lua: string;
  readonly numberOfKeys: number;
}

/**
 * Commits acknowledged once `replicas` replicas have them (Redis `WAIT`).
 *
 * On one master (one Redis, Sentinel) replicated commits go over a connection of their own, and one `WAIT` is sent
 * per group of commits in flight: `WAIT` blocks the connection that sends it until the replicas have everything it
 * wrote before, so the commits sent while a `WAIT` is out queue behind it in Redis and are all covered by the next
 * one, sent when it returns. Commits thus share replica round trips instead of taking one each, and the store's
 * command connection (heads, reads, lookups, deletes) is never held by a `WAIT`. The commit goes as `EVALSHA`; a
 * `NOSCRIPT` (Redis restarted, scripts flushed) loads the script and sends it again in a later group: an automatic
 * `EVAL` fallback would come after the `WAIT` meant to cover it.
 *
 * On a cluster each commit and its `WAIT` go in one pipeline on the cluster connection, so both reach the session's
 * master.
 */
export class ReplicaWait {
  readonly #replicas: number;
  readonly #timeoutMs: number;
  readonly #target:
    | { kind: 'group'; connection: Redis; script: CommitScript & { sha: string } }
    | {
        kind: 'pipeline';
        connection: CommitConnection;
      };
  /** The `WAIT` out now (blocking the commit connection), if any. */
  #waiting: Promise<number> | undefined;
  /** The `WAIT` of the commits sent since `#waiting` went out: sent when it returns (or on the next tick). */
  #nextGroup: Promise<number> | undefined;

  /**
   * `timeoutMs`: how long a `WAIT` may block its connection. A `Redis` connection of its own with the commit
   * `script`: group mode; the cluster's command connection: pipeline mode.
   */
  constructor(
    target: { connection: Redis; script: CommitScript } | { connection: CommitConnection },
    replicas: number,
    timeoutMs: number,
  ) {
    this.#replicas = replicas;
    this.#timeoutMs = timeoutMs;
    this.#target =
      'script' in target
        ? {
            kind: 'group',
            connection: target.connection,
            script: { ...target.script, sha: createHash('sha1').update(target.script.lua).digest('hex') },
          }
        : { kind: 'pipeline', connection: target.connection };
  }

  /** Run the commit script, then wait for the replicas. Fewer in time: `StoreUnavailableError`, `maybeCommitted`. */
  async commit(args: (string | Buffer)[]): Promise<unknown> {
    const [reply, replicas] =
      this.#target.kind === 'group' ? await this.#grouped(args, this.#target) : await this.#pipelined(args);
    if (isCommitted(reply) && replicas < this.#replicas) {
      throw new StoreUnavailableError(
        `redis commit: ${replicas} of ${this.#replicas} replicas acknowledged it within ${this.#timeoutMs} ms`,
        { maybeCommitted: true },
      );
    }
    return reply;
  }

  async #grouped(
    args: (string | Buffer)[],
    target: { connection: Redis; script: CommitScript & { sha: string } },
  ): Promise<[unknown, number]> {
    const { connection, script } = target;
    for (let attempt = 0; ; attempt++) {
      const commit = connection.evalsha(script.sha, script.numberOfKeys, ...args);
      // Joined in the same synchronous step as the commit is sent: the group's WAIT goes out after it.
      const wait = this.#groupWait(connection);
      const [outcome, waited] = await Promise.all([
        commit.then(
          (reply) => ({ reply }),
          (error: unknown) => ({ error }),
        ),
        wait.then(
          (replicas) => ({ replicas }),
          (error: unknown) => ({ error }),
        ),
      ]);
      if (!('error' in outcome)) {
        if (!('error' in waited)) return [outcome.reply, waited.replicas];
        if (!isCommitted(outcome.reply)) return [outcome.reply, 0]; // nothing written: no replica to wait for
        // The commit ran; only its WAIT failed (the connection dropped): it may have reached no replica.
        const why = waited.error instanceof Error ? waited.error.message : String(waited.error);
        throw new StoreUnavailableError(`redis commit: its WAIT failed: ${why}`, {
          cause: waited.error,
          maybeCommitted: true,
        });
      }
      const { error } = outcome;
      if (attempt > 0 || !(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      await connection.script('LOAD', script.lua); // it did not run: load it and send it again
    }
  }

  /** The `WAIT` that will cover a commit sent now. */
  #groupWait(connection: Redis): Promise<number> {
    this.#nextGroup ??= this.#sendGroupWait(connection, this.#waiting);
    return this.#nextGroup;
  }

  async #sendGroupWait(connection: Redis, previous: Promise<number> | undefined): Promise<number> {
    if (previous === undefined) await new Promise<void>((resolve) => process.nextTick(resolve));
    else await previous.catch(() => undefined);
    // The group closes: commits sent from here on wait for the next WAIT.
    this.#nextGroup = undefined;
    const waiting = connection.call('WAIT', this.#replicas, this.#timeoutMs).then(Number);
    this.#waiting = waiting;
    try {
      return await waiting;
    } finally {
      if (this.#waiting === waiting) this.#waiting = undefined;
    }
  }

  async #pipelined(args: (string | Buffer)[]): Promise<[unknown, number]> {
    const pipeline = this.#target.connection.pipeline() as ReturnType<RedisClient['pipeline']> & {
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

/**
 * The replica wait of a store whose commits wait for `replicas` replicas (undefined for none), and the connection
 * of its own it opened (on one master; none on a cluster): the store watches, awaits and closes it with the others.
 * A `WAIT` may block for half the command timeout.
 */
export function openReplicaWait(
  command: CommitConnection,
  replicas: number,
  commandTimeoutMs: number,
  script: CommitScript,
): { wait: ReplicaWait; connection: Redis | undefined } | undefined {
  if (replicas === 0) return undefined;
  const timeoutMs = Math.max(1, Math.floor(commandTimeoutMs / 2));
  if (command instanceof Cluster)
    return { wait: new ReplicaWait({ connection: command }, replicas, timeoutMs), connection: undefined };
  const connection = dropOnBadReplies(command.duplicate());
  return { wait: new ReplicaWait({ connection, script }, replicas, timeoutMs), connection };
}
