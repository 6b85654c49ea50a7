import { MetadataError, METADATA_LIMITS, type SessionMetadata } from '../../../shared/session-metadata.ts';
import { StoreDataError } from '../event-store.ts';
import {
  checkMetadataInit,
  type MetadataInit,
  type MetadataPatch,
  type MetadataStore,
  type SessionSummary,
} from '../metadata-store.ts';
import { validateSessionId } from '../session-id.ts';
import type { RedisClient } from './redis-connection.ts';
import { sessionKeys, type SessionKeys } from './redis-keys.ts';
import {
  METADATA_GET_SCRIPT,
  METADATA_INIT_SCRIPT,
  METADATA_PATCH_SCRIPT,
  SUMMARY_SCRIPT,
} from './redis-metadata-scripts.ts';
import { withPublishCommand } from './redis-scripts.ts';
import type { RedisCall } from './redis-snapshots.ts';

interface MetadataCommands {
  shMetaGet(epoch: string, meta: string): Promise<unknown>;
  shMetaPatch(epoch: string, meta: string, ...args: string[]): Promise<unknown>;
  shMetaInit(meta: string, ...args: string[]): Promise<unknown>;
  shSummary(log: string, epoch: string, meta: string, idempotency: string): Promise<unknown>;
}

/** A session's metadata from its hash's fields and values (`HGETALL`); a field of no known kind is ignored. */
export function metadataOfFields(fields: unknown, sessionId: string): SessionMetadata {
  if (!Array.isArray(fields)) throw new StoreDataError(`${sessionId}: the metadata hash is not a list`);
  const metadata: { -readonly [K in keyof SessionMetadata]: SessionMetadata[K] } = { labels: {}, rev: 0 };
  const labels: [string, string][] = [];
  for (let index = 0; index + 1 < fields.length; index += 2) {
    const field = String(fields[index]);
    const value = String(fields[index + 1]);
    if (field.startsWith('l:')) labels.push([field.slice(2), value]);
    else if (field === 'rev') metadata.rev = Number(value);
    else if (field === 'ca') metadata.createdAt = Number(value);
    else if (field === 'cb') metadata.createdBy = value;
    else if (field === 't') metadata.title = value;
    else if (field === 'p') metadata.parent = value;
    else if (field === 'fs') metadata.forkSeq = Number(value);
  }
  labels.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  metadata.labels = Object.fromEntries(labels);
  return metadata;
}

/** The Redis engine's session metadata: the hash `{<id>}:meta`, changed by Lua scripts that publish each change. */
export class RedisMetadata implements MetadataStore {
  readonly #redis: RedisClient & MetadataCommands;
  readonly #prefix: string;
  readonly #call: RedisCall;

  constructor(redis: RedisClient, prefix: string, publish: 'PUBLISH' | 'SPUBLISH', call: RedisCall) {
    redis.defineCommand('shMetaGet', { numberOfKeys: 2, lua: METADATA_GET_SCRIPT });
    redis.defineCommand('shMetaPatch', { numberOfKeys: 2, lua: withPublishCommand(METADATA_PATCH_SCRIPT, publish) });
    redis.defineCommand('shMetaInit', { numberOfKeys: 1, lua: withPublishCommand(METADATA_INIT_SCRIPT, publish) });
    redis.defineCommand('shSummary', { numberOfKeys: 4, lua: SUMMARY_SCRIPT });
    this.#redis = redis as RedisClient & MetadataCommands;
    this.#prefix = prefix;
    this.#call = call;
  }

  async get(sessionId: string): Promise<SessionMetadata | undefined> {
    const keys = this.#keys(sessionId);
    const reply = await this.#call('metadata read', () => this.#redis.shMetaGet(keys.epoch, keys.metadata));
    if (!Array.isArray(reply) || reply.length !== 2) throw new StoreDataError('redis metadata read: unexpected reply');
    const [epoch, fields] = reply as [string, unknown];
    return epoch === '' ? undefined : metadataOfFields(fields, sessionId);
  }

  async patch(sessionId: string, patch: MetadataPatch): Promise<SessionMetadata | undefined> {
    const keys = this.#keys(sessionId);
    const args: string[] = [keys.channel, String(METADATA_LIMITS.labels)];
    if (patch.title === undefined) args.push('', '');
    else args.push(patch.title === null ? 'd' : 's', patch.title ?? '');
    for (const [key, value] of Object.entries(patch.labels ?? {})) {
      args.push(`l:${key}`, value === null ? 'd' : 's', value ?? '');
    }
    const reply = await this.#call('metadata write', () => this.#redis.shMetaPatch(keys.epoch, keys.metadata, ...args));
    if (!Array.isArray(reply)) throw new StoreDataError('redis metadata write: unexpected reply');
    const [status, detail] = reply as [string, unknown];
    if (status === 'missing') return undefined;
    if (status === 'too-many') {
      throw new MetadataError(
        `at most ${METADATA_LIMITS.labels} labels (the patch would leave ${String(detail)})`,
        'labels',
      );
    }
    return metadataOfFields(detail, sessionId);
  }

  async initialize(sessionId: string, init: MetadataInit): Promise<SessionMetadata> {
    const keys = this.#keys(sessionId);
    checkMetadataInit(init);
    const args: string[] = [keys.channel];
    if (init.createdAt !== undefined) args.push('ca', String(init.createdAt));
    if (init.createdBy !== undefined) args.push('cb', init.createdBy);
    if (init.parent !== undefined) args.push('p', init.parent);
    if (init.forkSeq !== undefined) args.push('fs', String(init.forkSeq));
    const reply = await this.#call('metadata write', () => this.#redis.shMetaInit(keys.metadata, ...args));
    return metadataOfFields(reply, sessionId);
  }

  async summaries(sessionIds: readonly string[]): Promise<(SessionSummary | undefined)[]> {
    // Sent together: ioredis writes them back to back (one round trip per node, not per session).
    return Promise.all(sessionIds.map((sessionId) => this.#summary(sessionId)));
  }

  async #summary(sessionId: string): Promise<SessionSummary | undefined> {
    const keys = this.#keys(sessionId);
    const reply = await this.#call('summary', () =>
      this.#redis.shSummary(keys.log, keys.epoch, keys.metadata, keys.idempotency),
    );
    if (!Array.isArray(reply) || reply.length !== 6) throw new StoreDataError('redis summary: unexpected reply');
    const [epoch, length, last, first, bytes, fields] = reply as [string, number, string, string, number, unknown];
    if (epoch === '') return undefined;
    const metadata = metadataOfFields(fields, sessionId);
    return {
      sessionId,
      epoch,
      headSeq: Number(length) - 1,
      lastActivity: last === '' ? undefined : Number(last),
      bytes: Number(bytes),
      metadata: metadata.createdAt === undefined && first !== '' ? { ...metadata, createdAt: Number(first) } : metadata,
    };
  }

  #keys(sessionId: string): SessionKeys {
    validateSessionId(sessionId);
    return sessionKeys(this.#prefix, sessionId);
  }
}
