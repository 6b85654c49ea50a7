import type { CommittedBatch } from '../store/event-store.ts';
import type { SessionMetadata } from '../store/metadata-store.ts';
import { addMember, membersOf, removeMember, type OneOrSet } from '../one-or-set.ts';
import { SessionChannel, type ChannelDeps, type ChannelListener } from './session-channel.ts';

/** Hears a session's metadata changes (a subscription that asked for `metadata`). */
export type MetadataFollower = (metadata: SessionMetadata) => void;

/** The node's channels: one per watched session, created on first use, closed when its last listener leaves. */
export class ChannelRegistry {
  readonly #channels = new Map<string, SessionChannel>();
  /** This node's commits in flight, by session (whether or not it has a channel): a new channel starts with them. */
  readonly #ownCommits = new Map<string, number>();
  readonly #deps: ChannelDeps;
  /** Who follows each session's metadata on this node (while it holds the session's channel). */
  readonly #metadataFollowers = new Map<string, OneOrSet<MetadataFollower>>();

  constructor(deps: ChannelDeps) {
    this.#deps = {
      ...deps,
      onMetadata: (sessionId, metadata) => {
        deps.onMetadata?.(sessionId, metadata);
        for (const follower of membersOf(this.#metadataFollowers.get(sessionId))) follower(metadata);
      },
    };
  }

  /**
   * Call `follower` with each change of the session's metadata that its channel hears (hold the channel meanwhile:
   * `acquire`). Returns the unfollow.
   */
  followMetadata(sessionId: string, follower: MetadataFollower): () => void {
    this.#metadataFollowers.set(sessionId, addMember(this.#metadataFollowers.get(sessionId), follower));
    return () => {
      const left = removeMember(this.#metadataFollowers.get(sessionId), follower);
      if (left === undefined) this.#metadataFollowers.delete(sessionId);
      else this.#metadataFollowers.set(sessionId, left);
    };
  }

  get size(): number {
    return this.#channels.size;
  }

  /** Add `listener` to the session's channel (watching it first if needed) and wait until the head is known. */
  async acquire(sessionId: string, listener: ChannelListener): Promise<SessionChannel> {
    let channel = this.#channels.get(sessionId);
    if (channel === undefined || channel.failed) {
      channel = new SessionChannel(sessionId, this.#deps, this.#ownCommits.get(sessionId));
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
    this.#ownCommits.set(sessionId, (this.#ownCommits.get(sessionId) ?? 0) + 1);
    this.#channels.get(sessionId)?.ownCommitStarted();
  }

  /** This node's commit of `sessionId` ended, after its acks (see `SessionChannel.ownCommitFinished`). */
  ownCommitFinished(sessionId: string, batch: CommittedBatch | undefined): void {
    const inFlight = (this.#ownCommits.get(sessionId) ?? 1) - 1;
    if (inFlight > 0) this.#ownCommits.set(sessionId, inFlight);
    else this.#ownCommits.delete(sessionId);
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
