import type { CommittedBatch } from '../store/event-store.ts';
import { SessionChannel, type ChannelDeps, type ChannelListener } from './session-channel.ts';

/** The node's channels: one per watched session, created on first use, closed when its last listener leaves. */
export class ChannelRegistry {
  readonly #channels = new Map<string, SessionChannel>();
  readonly #deps: ChannelDeps;

  constructor(deps: ChannelDeps) {
    this.#deps = deps;
  }

  get size(): number {
    return this.#channels.size;
  }

  /** Add `listener` to the session's channel (watching it first if needed) and wait until the head is known. */
  async acquire(sessionId: string, listener: ChannelListener): Promise<SessionChannel> {
    let channel = this.#channels.get(sessionId);
    if (channel === undefined || channel.failed) {
      channel = new SessionChannel(sessionId, this.#deps);
      this.#channels.set(sessionId, channel);
      this.#deps.metrics.watchedSessions.set(this.#channels.size);
    }
    channel.add(listener);
    try {
      await channel.ready;
    } catch (error) {
      this.release(channel, listener);
      throw error;
    }
    return channel;
  }

  /** This node starts a commit of `sessionId` (see `SessionChannel.ownCommitStarted`). */
  ownCommitStarted(sessionId: string): void {
    this.#channels.get(sessionId)?.ownCommitStarted();
  }

  /** This node's commit of `sessionId` ended, after its acks (see `SessionChannel.ownCommitFinished`). */
  ownCommitFinished(sessionId: string, batch: CommittedBatch | undefined): void {
    this.#channels.get(sessionId)?.ownCommitFinished(batch);
  }

  release(channel: SessionChannel, listener: ChannelListener): void {
    channel.remove(listener);
    if (channel.listenerCount > 0) return;
    channel.close();
    if (this.#channels.get(channel.sessionId) === channel) this.#channels.delete(channel.sessionId);
    this.#deps.metrics.watchedSessions.set(this.#channels.size);
  }

  closeAll(): void {
    for (const channel of this.#channels.values()) channel.close();
    this.#channels.clear();
    this.#deps.metrics.watchedSessions.set(0);
  }
}
