import { Cluster, type Redis } from 'ioredis';
import type { SessionEvent } from '../../../shared/index.ts';
import { groupOfOne, singleResult } from '../group-commit.ts';
import { encodeEventBody, toSessionEvent } from '../codec/event-codec.ts';
import { msgpackArrayHeader } from '../../../shared/msgpack-header.ts';
import {
  StoreDataError,
  StoreRequestError,
  StoreUnavailableError,
  type CommitRequest,
  type CommitResult,
  type EventStore,
  type GroupCommitRequest,
  type GroupCommitResult,
  type KeyLookup,
  type KeyLookupRequest,
  type KnownKey,
  type SessionHead,
  type StoredPage,
  type StoreWatchHandlers,
} from '../event-store.ts';
import { newEpoch } from '../new-epoch.ts';
import { decodeStreamEntries, parseSeqRecord } from './redis-entries.ts';
import { readEntries } from './redis-page-multi.ts';
import { checkNotTrimmed, skipTrimmed, StoreTrimmedError } from '../trimmed-error.ts';
import { RedisTrimmer } from './redis-trim.ts';
import { RedisRestore } from './redis-restore.ts';
import { ClusterNodeError, toStoreError } from './redis-errors.ts';
import { checkKeyPrefix, DEFAULT_KEY_PREFIX, sessionIdOfChannel, sessionKeys, type SessionKeys } from './redis-keys.ts';
import { listSessionIds } from './redis-list.ts';
import { RedisNotifications } from './redis-notifications.ts';
import { CatchUpReader } from './redis-catch-up.ts';
import type { StoreCounters } from '../../metrics.ts';
import { COMMIT_SCRIPT, DELETE_SCRIPT, deleteScriptArgs, HEAD_SCRIPT, withPublishCommand } from './redis-scripts.ts';
import {
  connectionReady,
  openRedisConnections,
  topologyOf,
  type RedisAuth,
  type RedisClient,
} from './redis-connection.ts';
import { pubSubTransport } from './redis-pubsub.ts';
import { checkGroupCommitRequest, checkKeyLookupRequest, checkReadRequest } from '../request-check.ts';
import { isSameBatch } from '../same-batch.ts';
import { validateSessionId } from '../session-id.ts';
import type { PresenceStore } from '../presence-store.ts';
import { openReplicaWait, type ReplicaWait } from './replica-wait.ts';
import { RedisPresence } from './redis-presence.ts';
import { RedisSnapshots, type RedisCall } from './redis-snapshots.ts';
import { RedisForks } from './redis-forks.ts';
import type { ForkStore } from '../fork-store.ts';
import type { SnapshotStore } from '../snapshot-store.ts';
import { RedisMetadata } from './redis-metadata.ts';
import { RedisArchiveLease } from './redis-archive-lease.ts';
import type { ArchiveLeaseStore } from '../archive-lease.ts';
import type { MetadataStore } from '../metadata-store.ts';
import type { RetentionStore } from '../retention-store.ts';
import { RedisRetention } from './redis-retention.ts';
import type { RedactionStore } from '../redaction-store.ts';
import { RedisRedactions } from './redis-redaction.ts';
import { reportAsWarning, type StoreErrorReporter } from '../watcher-registry.ts';

export interface RedisStoreOptions {
  /** Redis URL (`redis://[user:pass@]host:port[/db]`, `rediss://` for TLS). Default `redis://127.0.0.1:6379`. */
  readonly url?: string;
  /**
   * Redis Cluster seed URLs (`redis://[user:pass@]host:port`, `rediss://` for TLS; the other nodes are discovered):
   * sessions are sharded by slot, notifications use sharded pub/sub. Takes precedence over `url` and `sentinels`.
   */
  readonly cluster?: readonly string[];
  /** Sentinels (`host:port`) that name the master `sentinelName`: followed across failovers. Over `url`. */
  readonly sentinels?: readonly string[];
  /** The master name the sentinels monitor (required with `sentinels`). */
  readonly sentinelName?: string;
  /** The sentinels' own login (`requirepass` / ACL user of the sentinels), when they ask for one. */
  readonly sentinelAuth?: RedisAuth;
  /** With `sentinels`: the master's login (its `requirepass` / ACL user), when it asks for one. */
  readonly masterAuth?: RedisAuth;
  /**
   * Replicas that must have a commit (Redis `WAIT`) before it is acknowledged; fewer within half the command timeout
   * fails the commit with `StoreUnavailableError` (`maybeCommitted`: retry with its key). Default 0 (no wait).
   */
  readonly waitReplicas?: number;
  /**
   * A connection whose settings (host, port, auth, TLS, db...) to copy: the store opens its own two connections
   * with `duplicate()` and never uses or closes this one. Takes precedence over `url`.
   */
  readonly redis?: Redis;
  /** Prefix of every key and channel. Default `sh:`. No braces (they would break the hash tag). */
  readonly keyPrefix?: string;
  /** A command without an answer after this long fails with `StoreUnavailableError`. Default 2000 ms. */
  readonly commandTimeoutMs?: number;
  /** TCP connect timeout, and how long `RedisStore.open` waits for Redis. Default 3000 ms. */
  readonly connectTimeoutMs?: number;
  /** Connection trouble and bad notifications go here (once per outage). Default: a process warning. */
  readonly onError?: StoreErrorReporter;
  /** Catch-up pages over a raw RESP socket where the topology allows it (default); false: through ioredis. */
  readonly rawReads?: boolean;
  /** A raw catch-up reply over this many bytes is dropped and read again in fewer entries. Default 64 MiB. */
  readonly maxReadReplyBytes?: number;
  /** A raw catch-up reply not complete this long after it was awaited fails the read. Default 5 × command timeout. */
  readonly maxReadMs?: number;
}

interface ScriptCommands {
  shCommit(...args: (string | Buffer)[]): Promise<unknown>;
  shHead(log: string, epoch: string, idempotency: string): Promise<unknown>;
  shDelete(...args: (string | number)[]): Promise<unknown>;
}

/**
 * The production engine: one Redis stream per session (entry id `<seq>-1`), commits by one atomic Lua script,
 * live notifications over pub/sub. See docs/storage.md for the key layout, formats and durability.
 *
 * Fails fast: while Redis is unreachable every call rejects with `StoreUnavailableError` at once (no offline
 * queue); the connections reconnect on their own, and watchers get `onResync()` once notifications flow again.
 */
export class RedisStore implements EventStore {
  readonly engine = 'redis';
  readonly keyPrefix: string;
  readonly presence: PresenceStore;
  readonly snapshots: SnapshotStore;
  readonly retention: RetentionStore;
  readonly forks: ForkStore;
  readonly #forks: RedisForks;
  /** See `EventStore.trim` and `pruneIdempotencyKeys` (redis-trim.ts). */
  readonly trim: EventStore['trim'];
  readonly pruneIdempotencyKeys: EventStore['pruneIdempotencyKeys'];
  readonly metadata: MetadataStore;
  readonly redactions: RedactionStore;
  readonly archiveLease: ArchiveLeaseStore;
  readonly restore: EventStore['restore'];
  readonly #redis: RedisClient & ScriptCommands;
  readonly #subscriber: RedisClient;
  /** Catch-up pages: raw RESP where the topology allows (not on a Cluster, nor over TLS), else `MULTI`. */
  readonly #catchUp: CatchUpReader;
  readonly #isCluster: boolean;
  /** Commits that wait for `waitReplicas` replicas (undefined when none is awaited). */
  readonly #replicaWait: ReplicaWait | undefined;
  /** Every connection the store opened (command, subscriber, and the replicated commits' own, if any). */
  readonly #connections: RedisClient[];
  readonly #notifications: RedisNotifications;
  readonly #commandTimeoutMs: number;
  readonly #connectTimeoutMs: number;
  readonly #report: StoreErrorReporter;
  #outageReported = false;
  readonly #reconnectListeners = new Set<() => void>();

  constructor(options: RedisStoreOptions = {}) {
    this.keyPrefix = options.keyPrefix ?? DEFAULT_KEY_PREFIX;
    checkKeyPrefix(this.keyPrefix);
    this.#commandTimeoutMs = options.commandTimeoutMs ?? 2000;
    this.#connectTimeoutMs = options.connectTimeoutMs ?? 3000;
    this.#report = options.onError ?? reportAsWarning;
    const waitReplicas = options.waitReplicas ?? 0;
    if (!Number.isSafeInteger(waitReplicas) || waitReplicas < 0 || waitReplicas > 100) {
      throw new StoreRequestError('waitReplicas must be an integer from 0 to 100');
    }
    const timeouts = { connectTimeoutMs: this.#connectTimeoutMs, commandTimeoutMs: this.#commandTimeoutMs };
    const { command, subscriber } = openRedisConnections(topologyOf(options), timeouts, options.redis);
    this.#subscriber = subscriber;
    this.#isCluster = command instanceof Cluster;
    const transport = pubSubTransport(subscriber, this.#commandTimeoutMs);
    const publish = transport.publishCommand;
    const commitScript = { numberOfKeys: 3, lua: withPublishCommand(COMMIT_SCRIPT, publish) };
    command.defineCommand('shCommit', commitScript);
    command.defineCommand('shHead', { numberOfKeys: 3, lua: HEAD_SCRIPT });
    command.defineCommand('shDelete', { lua: withPublishCommand(DELETE_SCRIPT, publish) });
    this.#redis = command as RedisClient & ScriptCommands;
    this.#catchUp = new CatchUpReader(command, {
      ...options,
      commandTimeoutMs: this.#commandTimeoutMs,
      report: this.#report,
      call: (send) => this.#call('read', false, send),
    });
    const replicated = openReplicaWait(this.#redis, waitReplicas, this.#commandTimeoutMs, commitScript);
    this.#replicaWait = replicated?.wait;
    this.#connections = [command, subscriber, ...(replicated?.connection === undefined ? [] : [replicated.connection])];
    this.presence = new RedisPresence(command, this.keyPrefix);
    const call: RedisCall = (operation, send) => this.#call(operation, false, send);
    this.snapshots = new RedisSnapshots(command, this.keyPrefix, call);
    this.metadata = new RedisMetadata(command, this.keyPrefix, publish, call);
    this.retention = new RedisRetention(command, this.keyPrefix, publish, call);
    this.forks = this.#forks = new RedisForks(command, this.keyPrefix, call, publish);
    this.archiveLease = new RedisArchiveLease(command, this.keyPrefix, call);
    this.restore = new RedisRestore(command, this.keyPrefix, call, waitReplicas, this.#commandTimeoutMs);
    const trimmer = new RedisTrimmer(command, this.keyPrefix, (send) => this.#call('trim', false, send));
    this.trim = trimmer.trim.bind(trimmer);
    this.pruneIdempotencyKeys = trimmer.pruneIdempotencyKeys.bind(trimmer);
    this.redactions = new RedisRedactions(command, this.keyPrefix, call, publish, this.#replicaWait);
    for (const connection of this.#connections) {
      connection.on('error', (error: Error) => this.#onConnectionError(error));
      connection.on('ready', () => {
        this.#outageReported = false;
      });
    }
    const reconnected = (): void => {
      for (const listener of [...this.#reconnectListeners]) this.#callReconnectListener(listener);
    };
    if (this.#isCluster) {
      // A cluster stays "ready" while one of its masters fails over: the slot map changing is the sign.
      transport.onLost(reconnected);
    } else {
      let wasReady = false;
      command.on('ready', () => {
        if (wasReady) reconnected();
        wasReady = true;
      });
    }
    this.#notifications = new RedisNotifications(transport, this.#report, (channel) =>
      sessionIdOfChannel(this.keyPrefix, channel),
    );
  }

  onReconnect(listener: () => void): () => void {
    this.#reconnectListeners.add(listener);
    return () => {
      this.#reconnectListeners.delete(listener);
    };
  }

  #callReconnectListener(listener: () => void): void {
    try {
      listener();
    } catch (error) {
      this.#report(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /** Create a store and wait until Redis answers; rejects with `StoreUnavailableError` after the connect timeout. */
  static async open(options: RedisStoreOptions = {}): Promise<RedisStore> {
    const store = new RedisStore(options);
    try {
      await store.whenReady();
      await store.#checkServer();
      return store;
    } catch (error) {
      await store.close();
      throw error;
    }
  }

  /** Resolves when both connections are ready (at once if they are), rejects after the connect timeout. */
  async whenReady(timeoutMs = this.#connectTimeoutMs): Promise<void> {
    await Promise.all(this.#connections.map((connection) => connectionReady(connection, timeoutMs)));
  }

  /** The Redis keys of a session (for tools and tests). */
  keys(sessionId: string): SessionKeys {
    validateSessionId(sessionId);
    return sessionKeys(this.keyPrefix, sessionId);
  }

  async head(sessionId: string): Promise<SessionHead> {
    const keys = this.keys(sessionId);
    await this.#notifications.whenActive(sessionId, this.#commandTimeoutMs);
    const reply = await this.#call('head', false, () => this.#redis.shHead(keys.log, keys.epoch, keys.idempotency));
    if (!Array.isArray(reply) || typeof reply[0] !== 'string' || !reply.slice(1).every(Number.isSafeInteger)) {
      throw new StoreUnavailableError("redis head: the reply is not the head script's");
    }
    const [epoch, length, base] = reply as [string, number, number];
    return base > 0 ? { epoch, headSeq: length - 1, firstSeq: base } : { epoch, headSeq: length - 1 };
  }

  async commit(request: CommitRequest): Promise<CommitResult> {
    return singleResult(await this.commitGroup(groupOfOne(request)));
  }

  async commitGroup(request: GroupCommitRequest): Promise<GroupCommitResult> {
    checkGroupCommitRequest(request);
    const keys = sessionKeys(this.keyPrefix, request.sessionId);
    const { batches } = request;
    const args: (string | Buffer)[] = [
      keys.log,
      keys.epoch,
      keys.idempotency,
      newEpoch(),
      String(request.expectedSeq),
      keys.channel,
      request.expectedEpoch ?? '',
      String(batches.length),
      request.time === undefined ? '' : String(request.time),
    ];
    let count = 0;
    batches.forEach((batch) => {
      // A known key is compared with its stored events, only when a retry comes (see sameBatch).
      args.push(batch.idempotencyKey ?? '', String(batch.events.length));
      count += batch.events.length;
    });
    const header = msgpackArrayHeader(count);
    args.push(Buffer.from(header.buffer, header.byteOffset, header.byteLength));
    for (const batch of batches) for (const draft of batch.events) args.push(encodeEventBody(draft));
    const reply = await this.#call('commit', true, () =>
      this.#replicaWait === undefined ? this.#redis.shCommit(...args) : this.#replicaWait.commit(args),
    );
    if (!Array.isArray(reply) || reply.length !== 3) {
      // Not the script's answer (a connection whose replies went astray): the commit may have run.
      throw new StoreUnavailableError("redis commit: the reply is not the commit script's", { maybeCommitted: true });
    }
    const [status, epoch, detail] = reply as [string, string, string | string[]];
    if (status === 'committed') {
      const time = Number(detail);
      const events: SessionEvent[] = [];
      for (const batch of batches) {
        for (const draft of batch.events) {
          events.push(toSessionEvent(draft, request.expectedSeq + events.length, time));
        }
      }
      return { status, epoch, events };
    }
    if (status === 'conflict') return { status, epoch, headSeq: Number(detail) - 1 };
    if (status === 'keys-known' && Array.isArray(detail)) {
      const known = await Promise.all(
        detail.map((record, index) => (record === '' ? undefined : this.#knownKey(request, index, record))),
      );
      return { status, epoch, keys: known };
    }
    throw new StoreDataError(`redis commit: unexpected script reply ${String(status)}`);
  }

  /** The epoch and the keys' records in one `MULTI` (`GET`, `HMGET`): reads only, nothing is created. */
  async lookupKeys(request: KeyLookupRequest): Promise<KeyLookup> {
    checkKeyLookupRequest(request);
    const keys = sessionKeys(this.keyPrefix, request.sessionId);
    const asked = request.batches.map((batch) => batch.idempotencyKey);
    const present = asked.filter((key): key is string => key !== undefined);
    const replies = await this.#call('lookup', false, async () => {
      const transaction = this.#redis.multi().get(keys.epoch);
      if (present.length > 0) transaction.hmget(keys.idempotency, ...present);
      const results = await transaction.exec();
      if (results === null) throw new StoreUnavailableError('redis lookup: the transaction was discarded');
      for (const [error] of results) if (error !== null) throw error;
      return results.map(([, result]) => result);
    });
    const [epoch, records = []] = replies as [string | null, (string | null)[] | undefined];
    let next = 0;
    const known = await Promise.all(
      asked.map((key, index) => {
        if (key === undefined) return undefined;
        const record = records[next++] ?? null;
        return record === null ? undefined : this.#knownKey(request, index, record);
      }),
    );
    return { epoch: epoch ?? undefined, keys: known };
  }

  /** What a known key committed, and whether it was this batch (its events compared, unless they were trimmed). */
  async #knownKey(request: KeyLookupRequest, index: number, record: string): Promise<KnownKey> {
    const { firstSeq, lastSeq, time } = parseSeqRecord(record);
    const stored = await this.read(request.sessionId, firstSeq, lastSeq - firstSeq + 1).catch(skipTrimmed);
    const trimmed = stored instanceof StoreTrimmedError;
    return { firstSeq, lastSeq, time, sameBatch: trimmed || isSameBatch(request.batches[index]!.events, stored) };
  }

  async read(sessionId: string, fromSeq: number, limit: number): Promise<readonly SessionEvent[]> {
    checkReadRequest(sessionId, fromSeq, limit);
    const keys = sessionKeys(this.keyPrefix, sessionId);
    await this.#notifications.whenActive(sessionId, this.#commandTimeoutMs);
    const read = await this.#call('read', false, () => readEntries(this.#redis, keys, fromSeq, limit));
    checkNotTrimmed(sessionId, fromSeq, read.base, read.epoch);
    return decodeStreamEntries(sessionId, fromSeq, read.entries);
  }

  /** See `CatchUpReader.read` (redis-catch-up.ts). */
  async readStoredPage(sessionId: string, fromSeq: number, limit: number, maxBytes?: number): Promise<StoredPage> {
    const keys = await this.#readableKeys(sessionId, fromSeq, limit, maxBytes);
    return this.#catchUp.read(keys, sessionId, fromSeq, limit, maxBytes);
  }

  /** Counts kept for the metrics: catch-up pages read through ioredis although the raw reader is on. */
  get counters(): StoreCounters {
    return this.#catchUp.counters;
  }

  /** The session's keys, once the read is checked and the session's notifications are active (reads wait for it). */
  async #readableKeys(sessionId: string, fromSeq: number, limit: number, maxBytes?: number): Promise<SessionKeys> {
    checkReadRequest(sessionId, fromSeq, limit, maxBytes);
    await this.#notifications.whenActive(sessionId, this.#commandTimeoutMs);
    return sessionKeys(this.keyPrefix, sessionId);
  }

  watch(sessionId: string, handlers: StoreWatchHandlers): () => void {
    const keys = this.keys(sessionId);
    return this.#notifications.watch(sessionId, keys.channel, handlers);
  }

  /** Both connections must be up: without the subscriber, watchers would miss commits. */
  async ping(): Promise<void> {
    await this.#call('ping', false, () => this.#redis.ping());
    if (this.#subscriber.status !== 'ready') {
      throw new StoreUnavailableError(`redis: the notification connection is ${this.#subscriber.status}`);
    }
  }

  /** See redis-list.ts. */
  listSessions(prefix = ''): Promise<string[]> {
    return listSessionIds(this.#redis, this.keyPrefix, prefix, (send) => this.#call('list', false, send));
  }

  async deleteSession(sessionId: string): Promise<boolean> {
    const args = deleteScriptArgs(this.keys(sessionId));
    return this.#forks.delete(sessionId, () => this.#call('delete', false, () => this.#redis.shDelete(...args)));
  }

  async close(): Promise<void> {
    this.#notifications.close();
    this.#catchUp.close();
    await Promise.all(
      this.#connections.map((connection) =>
        connection.status === 'ready'
          ? connection.quit().then(
              () => undefined,
              () => connection.disconnect(),
            )
          : connection.disconnect(),
      ),
    );
  }

  /**
   * The scripts use `#!lua` shebang flags: Redis 7.0 or newer. A cluster node reached as one Redis would answer
   * MOVED to most sessions: refused, naming the option to use.
   */
  async #checkServer(): Promise<void> {
    const info = await this.#call('info', false, () => this.#redis.info('server'));
    const version = /^redis_version:(\d+)\./m.exec(info)?.[1];
    if (version !== undefined && Number(version) < 7) {
      throw new Error(`session-hub needs Redis 7.0 or newer (found ${version}.x)`);
    }
    if (this.#isCluster) return;
    const cluster = await this.#call('info', false, () => this.#redis.info('cluster'));
    if (/^cluster_enabled:1/m.test(cluster)) throw new ClusterNodeError();
  }

  async #call<T>(operation: string, isCommit: boolean, send: () => Promise<T>): Promise<T> {
    try {
      return await send();
    } catch (error) {
      throw toStoreError(error, operation, isCommit, this.#isCluster);
    }
  }

  #onConnectionError(error: Error): void {
    if (this.#outageReported) return;
    this.#outageReported = true;
    this.#report(new StoreUnavailableError(`redis connection: ${error.message}`, { cause: error }));
  }
}
