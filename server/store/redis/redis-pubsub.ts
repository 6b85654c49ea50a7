import { Cluster, type Redis } from 'ioredis';
import type { RedisClient } from './redis-connection.ts';
import { withTimeout } from '../../../shared/timeout.ts';

/**
 * How the store's notifications travel: plain pub/sub on one Redis (SUBSCRIBE/PUBLISH), sharded pub/sub on a
 * Cluster (SSUBSCRIBE/SPUBLISH, so a commit's notice stays on its session's shard).
 */
export interface PubSubTransport {
  /** The publish command the commit and delete scripts use. */
  readonly publishCommand: 'PUBLISH' | 'SPUBLISH';
  /**
   * Subscribe to `channels`; resolves once Redis acknowledged every one. `again`: they may be subscribed already
   * (a resubscription after `onLost`), or half-subscribed on a node that no longer owns them.
   */
  subscribe(channels: readonly string[], again: boolean): Promise<void>;
  unsubscribe(channel: string): Promise<void>;
  /** Every message of a subscribed channel. */
  onMessage(listener: (channel: Buffer, message: Buffer) => void): void;
  /**
   * Subscriptions may have been lost (the connection came back, a slot moved to another master, a failover): the
   * listener subscribes every channel again (`again`), then has the watchers re-read.
   */
  onLost(listener: () => void): void;
}

/** Plain pub/sub on one Redis connection: subscriptions are lost when it reconnects. */
class PlainPubSub implements PubSubTransport {
  readonly publishCommand = 'PUBLISH';
  readonly #subscriber: Redis;

  constructor(subscriber: Redis) {
    this.#subscriber = subscriber;
  }

  async subscribe(channels: readonly string[]): Promise<void> {
    await this.#subscriber.subscribe(...channels);
  }

  async unsubscribe(channel: string): Promise<void> {
    await this.#subscriber.unsubscribe(channel);
  }

  onMessage(listener: (channel: Buffer, message: Buffer) => void): void {
    this.#subscriber.on('messageBuffer', listener);
  }

  onLost(listener: () => void): void {
    let wasReady = false;
    this.#subscriber.on('ready', () => {
      if (wasReady) listener();
      wasReady = true;
    });
  }
}

/** The reply ioredis reports as a queue error when Redis pushes an unsolicited SUNSUBSCRIBE (the slot moved). */
const SUNSUBSCRIBE_PUSH = /Last reply: sunsubscribe\b/;

/** How an SSUBSCRIBE sent to the master of ioredis' slot map fails when that master no longer owns the slot. */
const REDIRECTED = /^(MOVED|ASK) |^Too many Cluster redirections/;

/**
 * How one SSUBSCRIBE ended: acknowledged; `remapped`, ioredis re-routed its sharded subscribers meanwhile (a MOVED
 * made it refresh its slot map; the command itself is never settled); `redirected`, refused with a redirection;
 * `timeout`, no answer.
 */
type Attempt = 'subscribed' | 'remapped' | 'redirected' | 'timeout';

/**
 * Sharded pub/sub on a Cluster with ioredis `shardedSubscribers` (one subscriber connection per master). ioredis
 * 5.11 resubscribes its channels when its slot map changes, but says nothing when that is acknowledged, and takes
 * the SUNSUBSCRIBE Redis pushes when a slot moves away for a protocol error: both are turned into `onLost` here
 * (the slot map is refreshed at once on such a push), and the store subscribes every channel again itself.
 */
class ShardedPubSub implements PubSubTransport {
  readonly publishCommand = 'SPUBLISH';
  readonly #cluster: Cluster;
  readonly #timeoutMs: number;
  /** The SSUBSCRIBEs waiting, each told when ioredis re-routed its sharded subscribers (one listener for all). */
  readonly #remapWaiters = new Set<() => void>();

  constructor(cluster: Cluster, timeoutMs: number) {
    this.#cluster = cluster;
    this.#timeoutMs = timeoutMs;
    cluster.on('subscribersReady', () => {
      for (const waiter of [...this.#remapWaiters]) waiter();
    });
  }

  async subscribe(channels: readonly string[], again: boolean): Promise<void> {
    // One command per channel: channels of different sessions are in different slots (CROSSSLOT otherwise).
    await Promise.all(channels.map((channel) => this.#subscribeOne(channel, again)));
  }

  /**
   * SSUBSCRIBE one channel, within the timeout. Sent on a stale slot map (the slot moved to another master since
   * the last refresh, every 2 s), it gets MOVED, which ioredis answers by refreshing the map without ever settling
   * the command, or ASK (a slot half-moved): then, or when half the timeout passed without an answer, the slot map
   * is refreshed (ioredis did already after a MOVED) and the SSUBSCRIBE sent once more, on the new map.
   */
  async #subscribeOne(channel: string, again: boolean): Promise<void> {
    const deadline = Date.now() + this.#timeoutMs;
    // Drop ioredis' own record first, so that a channel is never listed (and resubscribed) twice.
    if (again) await this.#cluster.sunsubscribe(channel).catch(() => undefined);
    const first = await this.#attempt(channel, this.#timeoutMs / 2);
    if (first === 'subscribed') return;
    if (first !== 'remapped') await withTimeout(this.#refreshSlots(), Math.max(deadline - Date.now(), 0), timedOut);
    await this.#cluster.sunsubscribe(channel).catch(() => undefined);
    await withTimeout(this.#cluster.ssubscribe(channel), Math.max(deadline - Date.now(), 0), timedOut);
  }

  /** One SSUBSCRIBE of `channel`, waited on for `ms` at most (see `Attempt`); other refusals reject. */
  #attempt(channel: string, ms: number): Promise<Attempt> {
    return new Promise<Attempt>((resolve, reject) => {
      const settle = (): void => {
        clearTimeout(timer);
        this.#remapWaiters.delete(remapped);
      };
      const remapped = (): void => {
        settle();
        resolve('remapped');
      };
      const expire = (): void => {
        settle();
        resolve('timeout');
      };
      const timer = Number.isFinite(ms) ? setTimeout(expire, ms) : undefined; // no timeout: wait for an answer
      this.#remapWaiters.add(remapped);
      this.#cluster.ssubscribe(channel).then(
        () => {
          settle();
          resolve('subscribed');
        },
        (error: unknown) => {
          settle();
          if (error instanceof Error && REDIRECTED.test(error.message)) resolve('redirected');
          else reject(error);
        },
      );
    });
  }

  /** ioredis' slot map read again (its sharded subscribers re-routed when it changed); failures are its own. */
  #refreshSlots(): Promise<void> {
    return new Promise<void>((resolve) => this.#cluster.refreshSlotsCache(() => resolve()));
  }

  async unsubscribe(channel: string): Promise<void> {
    await this.#cluster.sunsubscribe(channel);
  }

  onMessage(listener: (channel: Buffer, message: Buffer) => void): void {
    this.#cluster.on('smessageBuffer', listener);
  }

  onLost(listener: () => void): void {
    this.#cluster.on('subscribersReady', listener);
    this.#cluster.on('nodeError', (error: unknown) => {
      if (error instanceof Error && SUNSUBSCRIBE_PUSH.test(error.message)) {
        this.#cluster.refreshSlotsCache(() => listener());
      }
    });
  }
}

const timedOut = (): Error => new Error('SSUBSCRIBE timed out');

/** The transport for the store's notification connection. */
export function pubSubTransport(subscriber: RedisClient, timeoutMs: number): PubSubTransport {
  return subscriber instanceof Cluster ? new ShardedPubSub(subscriber, timeoutMs) : new PlainPubSub(subscriber);
}
