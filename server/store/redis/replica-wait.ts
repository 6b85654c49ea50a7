import { createHash } from 'node:crypto';
import { Cluster, type Redis } from 'ioredis';
import { StoreUnavailableError } from '../event-store.ts';
import { dropOnBadReplies, type RedisClient } from './redis-connection.ts';

/** The command connection with the commit script defined on it. */
type CommitConnection = RedisClient & { shCommit(...args: (string | Buffer)[]): Promise<unknown> };

/** The commit script, as the replicated commits' own connection sends it (`EVALSHA`, loaded when missing). */
export interface CommitScript {
  readonly lua: string;
  readonly numberOfKeys: number;
}

/**
 * A write script whose writes wait for the replicas: its Lua, its name as defined on the command connection
 * (`defineCommand`: the cluster pipeline sends it by name), and which replies mean it wrote (a reply that wrote
 * nothing is not waited for). `replicatedScript` makes one.
 */
export interface ReplicatedScript extends CommitScript {
  readonly name: string;
  readonly sha: string;
  /** Whether the script's reply says it wrote. */
  readonly wrote: (reply: unknown) => boolean;
  /** What it does, for the error message ("commit", "redact"). */
  readonly operation: string;
}

export function replicatedScript(
  name: string,
  script: CommitScript,
  operation: string,
  wrote: (reply: unknown) => boolean,
): ReplicatedScript {
  return { ...script, name, operation, wrote, sha: createHash('sha1').update(script.lua).digest('hex') };
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
 *
 * Other write scripts whose loss in a failover matters (a redaction: the secret would come back) go the same way
 * (`run`): on the same connection as their `WAIT`, which covers only what its own connection wrote.
 */
export class ReplicaWait {
  readonly #replicas: number;
  readonly #timeoutMs: number;
  readonly #target: { kind: 'group'; connection: Redis } | { kind: 'pipeline'; connection: RedisClient };
  readonly #commit: ReplicatedScript;
  /** The `WAIT` out now (blocking the commit connection), if any. */
  #waiting: Promise<number> | undefined;
  /** The `WAIT` of the commits sent since `#waiting` went out: sent when it returns (or on the next tick). */
  #nextGroup: Promise<number> | undefined;

  /**
   * `timeoutMs`: how long a `WAIT` may block its connection. `group`: a `Redis` connection of its own (scripts go
   * as `EVALSHA`); `pipeline`: the cluster's command connection (scripts go by the name defined on it). `commit`:
   * the commit script (defined as `shCommit`).
   */
  constructor(
    target: { kind: 'group'; connection: Redis } | { kind: 'pipeline'; connection: RedisClient },
    commit: CommitScript,
    replicas: number,
    timeoutMs: number,
  ) {
    this.#replicas = replicas;
    this.#timeoutMs = timeoutMs;
    this.#target = target;
    this.#commit = replicatedScript(
      'shCommit',
      commit,
      'commit',
      (reply) => Array.isArray(reply) && reply[0] === 'committed',
    );
  }

  /** Run the commit script, then wait for the replicas. Fewer in time: `StoreUnavailableError`, `maybeCommitted`. */
  commit(args: (string | Buffer)[]): Promise<unknown> {
    return this.run(this.#commit, args);
  }

  /**
   * Run `script` (defined under its name on the command connection), then wait for the replicas when it wrote.
   * Fewer in time: `StoreUnavailableError` with `maybeCommitted` (it ran on the master, maybe on no replica).
   */
  async run(script: ReplicatedScript, args: (string | Buffer)[]): Promise<unknown> {
    const [reply, replicas] =
      this.#target.kind === 'group'
        ? await this.#grouped(args, this.#target.connection, script)
        : await this.#pipelined(args, this.#target.connection, script);
    if (script.wrote(reply) && replicas < this.#replicas) {
      throw new StoreUnavailableError(
        `redis ${script.operation}: ${replicas} of ${this.#replicas} replicas acknowledged it within ${this.#timeoutMs} ms`,
        { maybeCommitted: true },
      );
    }
    return reply;
  }

  async #grouped(args: (string | Buffer)[], connection: Redis, script: ReplicatedScript): Promise<[unknown, number]> {
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
        if (!script.wrote(outcome.reply)) return [outcome.reply, 0]; // nothing written: no replica to wait for
        // The script ran; only its WAIT failed (the connection dropped): it may have reached no replica.
        const why = waited.error instanceof Error ? waited.error.message : String(waited.error);
        throw new StoreUnavailableError(`redis ${script.operation}: its WAIT failed: ${why}`, {
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

  async #pipelined(
    args: (string | Buffer)[],
    connection: RedisClient,
    script: ReplicatedScript,
  ): Promise<[unknown, number]> {
    const pipeline = connection.pipeline() as ReturnType<RedisClient['pipeline']> &
      Record<string, (...args: (string | Buffer)[]) => unknown>;
    const send = pipeline[script.name];
    if (send === undefined) throw new TypeError(`redis ${script.operation}: ${script.name} is not defined`);
    send.apply(pipeline, args);
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
  if (command instanceof Cluster) {
    return {
      wait: new ReplicaWait({ kind: 'pipeline', connection: command }, script, replicas, timeoutMs),
      connection: undefined,
    };
  }
  const connection = dropOnBadReplies(command.duplicate());
  return { wait: new ReplicaWait({ kind: 'group', connection }, script, replicas, timeoutMs), connection };
}
