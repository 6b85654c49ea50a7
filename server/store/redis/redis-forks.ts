import type { SessionEvent } from '../../../shared/index.ts';
import { encodeEventBody, toSessionEvent } from '../codec/event-codec.ts';
import { StoreDataError } from '../event-store.ts';
import type { ForkRequest, ForkResult, ForkStore, Lineage, LineageRead } from '../fork-store.ts';
import { MAX_FORK_DEPTH, StoreHasForksError } from '../fork-store.ts';
import { checkForkRequest } from '../fork-request-check.ts';
import { newEpoch } from '../new-epoch.ts';
import { validateSessionId } from '../session-id.ts';
import type { RedisClient } from './redis-connection.ts';
import { FORK_CREATE_SCRIPT, FORK_PRUNE_SCRIPT, FORK_REGISTER_SCRIPT, LINEAGE_SCRIPT } from './redis-fork-scripts.ts';

/**
 * An entry of a session's forks older than this that names no fork of it was left by a maker that died between
 * its two steps (they follow each other within a command timeout): deleting the session takes it out.
 */
export const STALE_FORK_ENTRY_MS = 60_000;
import { sessionKeys, type SessionKeys } from './redis-keys.ts';
import { withPublishCommand } from './redis-scripts.ts';
import type { RedisCall } from './redis-snapshots.ts';

interface ForkCommands {
  shForkRegister(...args: string[]): Promise<unknown>;
  shForkCreate(...args: (string | Buffer)[]): Promise<unknown>;
  shLineage(epoch: string, lineage: string): Promise<unknown>;
  shForkPrune(forks: string, ...args: string[]): Promise<unknown>;
}

/** A lineage hash's fields (`HGETALL`'s flat reply) as a `Lineage`; undefined when it has none. */
export function lineageOf(fields: unknown): Lineage | undefined {
  if (!Array.isArray(fields) || fields.length === 0) return undefined;
  const record = new Map<string, string>();
  for (let index = 0; index + 1 < fields.length; index += 2)
    record.set(String(fields[index]), String(fields[index + 1]));
  const parent = record.get('parent');
  const parentEpoch = record.get('parentEpoch');
  const forkSeq = Number(record.get('forkSeq'));
  const depth = Number(record.get('depth'));
  if (parent === undefined || parentEpoch === undefined || !Number.isSafeInteger(forkSeq) || !(depth >= 1)) {
    throw new StoreDataError(`redis: a lineage hash is malformed (${fields.map(String).join(' ')})`);
  }
  return { parent, forkSeq, parentEpoch, depth };
}

/**
 * The Redis engine's forks (fork-store.ts): the parent's forks (`{<parent>}:forks`, a hash) are written by one
 * script on the parent's keys, the fork's epoch, base, lineage hash (`{<id>}:fork`) and first events by one on
 * its own (redis-fork-scripts.ts): on a Cluster the two sessions may be in different slots.
 */
export class RedisForks implements ForkStore {
  readonly #redis: RedisClient & ForkCommands;
  readonly #prefix: string;
  readonly #call: RedisCall;

  constructor(redis: RedisClient, prefix: string, call: RedisCall, publish: 'PUBLISH' | 'SPUBLISH') {
    redis.defineCommand('shForkRegister', { numberOfKeys: 5, lua: FORK_REGISTER_SCRIPT });
    redis.defineCommand('shForkCreate', { numberOfKeys: 4, lua: withPublishCommand(FORK_CREATE_SCRIPT, publish) });
    redis.defineCommand('shLineage', { numberOfKeys: 2, lua: LINEAGE_SCRIPT });
    redis.defineCommand('shForkPrune', { numberOfKeys: 1, lua: FORK_PRUNE_SCRIPT });
    this.#redis = redis as RedisClient & ForkCommands;
    this.#prefix = prefix;
    this.#call = call;
  }

  async create(request: ForkRequest): Promise<ForkResult> {
    checkForkRequest(request);
    const parent = sessionKeys(this.#prefix, request.parentId);
    const child = sessionKeys(this.#prefix, request.childId);
    const registered = await this.#call('fork', () =>
      this.#redis.shForkRegister(
        ...[parent.log, parent.epoch, parent.idempotency, parent.lineage, parent.forks],
        ...[request.parentEpoch, String(request.atSeq), request.childId, String(MAX_FORK_DEPTH)],
      ),
    );
    const [status, epoch, detail, added] = registered as [string, string, number, number];
    if (status === 'parent-changed') return { status, epoch, headSeq: Number(detail) - 1 };
    if (status === 'too-deep') return { status, depth: Number(detail) };
    if (status !== 'registered') throw new StoreDataError(`redis fork: unexpected reply ${String(status)}`);
    const depth = Number(detail);
    const base = request.atSeq + 1;
    const bodies = request.events.map((draft) => encodeEventBody(draft));
    const created = await this.#call('fork', () =>
      this.#redis.shForkCreate(
        ...[child.log, child.epoch, child.idempotency, child.lineage, newEpoch(), String(base)],
        ...[request.parentId, request.parentEpoch, String(depth), child.channel, ...bodies],
      ),
    );
    const reply = created as [string, string, string | number, unknown];
    if (reply[0] === 'forked') {
      const time = Number(reply[2]);
      const events: SessionEvent[] = request.events.map((draft, index) => toSessionEvent(draft, base + index, time));
      const lineage = { parent: request.parentId, forkSeq: request.atSeq, parentEpoch: request.parentEpoch, depth };
      return { status: 'forked', epoch: reply[1], headSeq: base + events.length - 1, lineage, events };
    }
    if (reply[0] !== 'target-exists') throw new StoreDataError(`redis fork: unexpected reply ${String(reply[0])}`);
    const lineage = lineageOf(reply[3]);
    const retried = lineage?.parent === request.parentId && lineage.forkSeq === request.atSeq;
    // Listed by this call for a fork that was not made: take it back (a retried fork keeps its entry).
    if (Number(added) === 1 && !retried) await this.#unlist(parent, request.childId);
    return { status: 'target-exists', epoch: reply[1], headSeq: Number(reply[2]) - 1, lineage };
  }

  async lineage(sessionId: string): Promise<LineageRead> {
    validateSessionId(sessionId);
    const keys = sessionKeys(this.#prefix, sessionId);
    const reply = await this.#call('lineage', () => this.#redis.shLineage(keys.epoch, keys.lineage));
    const [epoch, fields] = reply as [string, unknown];
    if (epoch === '') return { epoch: undefined, lineage: undefined };
    return { epoch, lineage: lineageOf(fields) };
  }

  async list(sessionId: string): Promise<string[]> {
    validateSessionId(sessionId);
    const keys = sessionKeys(this.#prefix, sessionId);
    return this.#call('forks', () => this.#redis.hkeys(keys.forks));
  }

  /**
   * Run the delete script (`run`, redis-scripts.ts): refused while the session has forks (`StoreHasForksError`),
   * after taking out the entries a maker that died between its two steps left (listed over `STALE_FORK_ENTRY_MS`
   * ago, naming no fork of this session), and once more if there were some; a deleted fork then leaves its parent's
   * forks (a separate step: the parent may be in another slot). Resolves whether something was deleted.
   */
  async delete(sessionId: string, run: () => Promise<unknown>): Promise<boolean> {
    let reply = await run();
    if (Array.isArray(reply) && Number(reply[0]) < 0 && (await this.#prune(sessionId)) > 0) reply = await run();
    const [deleted, forks, parent] = Array.isArray(reply) ? (reply as [number, number, string?]) : [Number(reply), 0];
    if (deleted < 0) throw new StoreHasForksError(sessionId, Number(forks));
    if (typeof parent === 'string' && parent !== '') await this.#unlist(sessionKeys(this.#prefix, parent), sessionId);
    return deleted > 0;
  }

  /** Take out the session's fork entries that name no fork of it and are older than a fork takes to make. */
  async #prune(sessionId: string): Promise<number> {
    const listed = await this.list(sessionId);
    const missing: string[] = [];
    for (const childId of listed.slice(0, 1000)) {
      const { lineage } = await this.lineage(childId);
      if (lineage?.parent !== sessionId) missing.push(childId);
    }
    if (missing.length === 0) return 0;
    const keys = sessionKeys(this.#prefix, sessionId);
    const pruned = await this.#call('fork', () =>
      this.#redis.shForkPrune(keys.forks, String(STALE_FORK_ENTRY_MS), ...missing),
    );
    return Number(pruned);
  }

  async #unlist(parent: SessionKeys, childId: string): Promise<void> {
    await this.#call('fork', () => this.#redis.hdel(parent.forks, childId));
  }
}
