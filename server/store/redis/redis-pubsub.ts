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

  constructor(cluster: Cluster, timeoutMs: number) {
    this.#cluster = cluster;
    this.#timeoutMs = timeoutMs;
  }

  async subscribe(channels: readonly string[], again: boolean): Promise<void> {
    // One command per channel: channels of different sessions are in different slots (CROSSSLOT otherwise).
    await Promise.all(
      channels.map(async (channel) => {
        // Drop ioredis' own record first, so that a channel is never listed (and resubscribed) twice.
        if (again) await this.#cluster.sunsubscribe(channel).catch(() => undefined);
        // An SSUBSCRIBE sent on a stale slot map gets MOVED, which ioredis answers by refreshing the map (then
        // `onLost`) without ever settling the command: give up on it after the timeout.
        await withTimeout(this.#cluster.ssubscribe(channel), this.#timeoutMs, () => new Error('SSUBSCRIBE timed out'));
      }),
    );
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

/** The transport for the store's notification connection. */
export function pubSubTransport(subscriber: RedisClient, timeoutMs: number): PubSubTransport {
  return subscriber instanceof Cluster ? new ShardedPubSub(subscriber, timeoutMs) : new PlainPubSub(subscriber);
}
