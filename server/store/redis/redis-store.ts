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
  type EventPage,
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
import { decodeStreamEntries, streamEntryParts, type RawStreamEntry } from './redis-entries.ts';
import { toStoreError } from './redis-errors.ts';
import {
  checkKeyPrefix,
  DEFAULT_KEY_PREFIX,
  epochKeyPattern,
  sessionIdOfChannel,
  sessionIdOfEpochKey,
  sessionKeys,
  type SessionKeys,
} from './redis-keys.ts';
import { RedisNotifications } from './redis-notifications.ts';
import { readPageInMulti } from './redis-page-multi.ts';
import { pageTargetOf, RedisPageConnection } from './redis-page-connection.ts';
import { COMMIT_SCRIPT, DELETE_SCRIPT, HEAD_SCRIPT, withPublishCommand } from './redis-scripts.ts';
import { connectionReady, dataNodes, openRedisConnections, topologyOf, type RedisClient } from './redis-connection.ts';
import { pubSubTransport } from './redis-pubsub.ts';
import { ClusterNodeError } from './redis-errors.ts';
import { checkGroupCommitRequest, checkKeyLookupRequest, checkReadRequest } from '../request-check.ts';
import { isSameBatch } from '../same-batch.ts';
import { validateSessionId } from '../session-id.ts';
import type { PresenceStore } from '../presence-store.ts';
import { ReplicaWait } from './replica-wait.ts';
import { RedisPresence } from './redis-presence.ts';
import { RedisSnapshots } from './redis-snapshots.ts';
import type { SnapshotStore } from '../snapshot-store.ts';
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
}

interface ScriptCommands {
  shCommit(...args: (string | Buffer)[]): Promise<unknown>;
  shHead(log: string, epoch: string): Promise<unknown>;
  shDelete(...args: string[]): Promise<unknown>;
}

function parseSeqRecord(text: string): { firstSeq: number; lastSeq: number; time: number } {
  const [first, last, time] = text.split(':');
  return { firstSeq: Number(first), lastSeq: Number(last), time: Number(time) };
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
  readonly #redis: RedisClient & ScriptCommands;
  readonly #subscriber: RedisClient;
  /** Catch-up pages in raw RESP where the topology allows (not on a Cluster, nor over TLS). */
  readonly #pages: RedisPageConnection;
  readonly #isCluster: boolean;
  readonly #waitReplicas: number;
  /** Commits that wait for `waitReplicas` replicas (undefined when none is awaited). */
  readonly #replicaWait: ReplicaWait | undefined;
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
    this.#waitReplicas = options.waitReplicas ?? 0;
    if (!Number.isSafeInteger(this.#waitReplicas) || this.#waitReplicas < 0 || this.#waitReplicas > 100) {
      throw new StoreRequestError('waitReplicas must be an integer from 0 to 100');
    }
    const timeouts = { connectTimeoutMs: this.#connectTimeoutMs, commandTimeoutMs: this.#commandTimeoutMs };
    const { command, subscriber } = openRedisConnections(topologyOf(options), timeouts, options.redis);
    this.#subscriber = subscriber;
    this.#isCluster = command instanceof Cluster;
    const transport = pubSubTransport(subscriber, this.#commandTimeoutMs);
    const publish = transport.publishCommand;
    command.defineCommand('shCommit', { numberOfKeys: 3, lua: withPublishCommand(COMMIT_SCRIPT, publish) });
    command.defineCommand('shHead', { numberOfKeys: 2, lua: HEAD_SCRIPT });
    command.defineCommand('shDelete', { numberOfKeys: 4, lua: withPublishCommand(DELETE_SCRIPT, publish) });
    this.#redis = command as RedisClient & ScriptCommands;
    this.#pages = new RedisPageConnection(() => pageTargetOf(command), this.#commandTimeoutMs);
    command.on('ready', () => this.#pages.reset()); // after a reconnect the master may sit behind the same address
    const waitTimeoutMs = Math.max(1, Math.floor(this.#commandTimeoutMs / 2));
    this.#replicaWait =
      this.#waitReplicas === 0
        ? undefined
        : new ReplicaWait(this.#redis, this.#waitReplicas, waitTimeoutMs, !this.#isCluster);
    this.presence = new RedisPresence(command, this.keyPrefix);
    this.snapshots = new RedisSnapshots(command, this.keyPrefix, (operation, send) =>
      this.#call(operation, false, send),
    );
    for (const connection of [command, this.#subscriber]) {
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
    await Promise.all([this.#redis, this.#subscriber].map((connection) => connectionReady(connection, timeoutMs)));
  }

  /** The Redis keys of a session (for tools and tests). */
  keys(sessionId: string): SessionKeys {
    validateSessionId(sessionId);
    return sessionKeys(this.keyPrefix, sessionId);
  }

  async head(sessionId: string): Promise<SessionHead> {
    const keys = this.keys(sessionId);
    await this.#notifications.whenActive(sessionId, this.#commandTimeoutMs);
    const reply = await this.#call('head', false, () => this.#redis.shHead(keys.log, keys.epoch));
    const [epoch, length] = reply as [string, number];
    return { epoch, headSeq: length - 1 };
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

  /** What a known key committed, and whether it was this batch (compared with the stored events). */
  async #knownKey(request: KeyLookupRequest, index: number, record: string): Promise<KnownKey> {
    const { firstSeq, lastSeq, time } = parseSeqRecord(record);
    const stored = await this.read(request.sessionId, firstSeq, lastSeq - firstSeq + 1);
    return { firstSeq, lastSeq, time, sameBatch: isSameBatch(request.batches[index]!.events, stored) };
  }

  async read(sessionId: string, fromSeq: number, limit: number): Promise<readonly SessionEvent[]> {
    checkReadRequest(sessionId, fromSeq, limit);
    const keys = sessionKeys(this.keyPrefix, sessionId);
    await this.#notifications.whenActive(sessionId, this.#commandTimeoutMs);
    const entries = await this.#call('read', false, () =>
      this.#redis.xrangeBuffer(keys.log, `${fromSeq}-0`, '+', 'COUNT', limit),
    );
    return decodeStreamEntries(sessionId, fromSeq, entries as RawStreamEntry[]);
  }

  async readPage(sessionId: string, fromSeq: number, limit: number): Promise<EventPage> {
    const keys = await this.#readableKeys(sessionId, fromSeq, limit);
    const { epoch, entries } = await this.#readInMulti(keys, fromSeq, limit);
    if (epoch === '') return { epoch: undefined, events: [] };
    return { epoch, events: decodeStreamEntries(sessionId, fromSeq, entries) };
  }

  /**
   * Over the catch-up connection (redis-page-connection.ts) when it can read the page and the epoch did not change
   * between its two `GET`s (a log started or was deleted meanwhile); otherwise in one `MULTI` (redis-page-multi.ts).
   */
  async readStoredPage(sessionId: string, fromSeq: number, limit: number): Promise<StoredPage> {
    const keys = await this.#readableKeys(sessionId, fromSeq, limit);
    const raw = await this.#call('read', false, () => this.#pages.read(keys, sessionId, fromSeq, limit));
    if (raw !== undefined && raw.epochBefore === raw.epochAfter) return storedPage(raw.epochBefore, fromSeq, () => raw);
    const { epoch, entries } = await this.#readInMulti(keys, fromSeq, limit);
    return storedPage(epoch, fromSeq, () => streamEntryParts(sessionId, fromSeq, entries));
  }

  #readInMulti(keys: SessionKeys, fromSeq: number, limit: number): ReturnType<typeof readPageInMulti> {
    return this.#call('read', false, () => readPageInMulti(this.#redis, keys, fromSeq, limit));
  }

  /** The session's keys, once the read is checked and the session's notifications are active (reads wait for it). */
  async #readableKeys(sessionId: string, fromSeq: number, limit: number): Promise<SessionKeys> {
    checkReadRequest(sessionId, fromSeq, limit);
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

  async listSessions(prefix = ''): Promise<string[]> {
    const sessionIds: string[] = [];
    // A cluster's keys are spread over its masters: SCAN each of them.
    for (const node of dataNodes(this.#redis)) {
      let cursor = '0';
      do {
        const [next, keys] = await this.#call('list', false, () =>
          node.scan(cursor, 'MATCH', epochKeyPattern(this.keyPrefix, prefix), 'COUNT', 1000),
        );
        cursor = next;
        for (const key of keys) {
          const sessionId = sessionIdOfEpochKey(this.keyPrefix, key);
          if (sessionId?.startsWith(prefix) === true) sessionIds.push(sessionId);
        }
      } while (cursor !== '0');
    }
    return [...new Set(sessionIds)]; // SCAN may return a key twice
  }

  async deleteSession(sessionId: string): Promise<boolean> {
    const keys = this.keys(sessionId);
    const deleted = await this.#call('delete', false, () =>
      this.#redis.shDelete(keys.log, keys.epoch, keys.idempotency, keys.snapshot, keys.channel),
    );
    return Number(deleted) > 0;
  }

  async close(): Promise<void> {
    this.#notifications.close();
    this.#pages.close();
    await Promise.all(
      [this.#redis, this.#subscriber].map((connection) =>
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

/** A session without an epoch reads as empty, whatever its stream holds (its entries are not even checked). */
function storedPage(epoch: string, firstSeq: number, parts: () => Pick<StoredPage, 'bodies' | 'times'>): StoredPage {
  if (epoch === '') return { epoch: undefined, firstSeq, bodies: [], times: [] };
  const { bodies, times } = parts();
  return { epoch, firstSeq, bodies, times };
}
