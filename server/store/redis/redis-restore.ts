import { StoreDataError, StoreUnavailableError } from '../event-store.ts';
import { checkStageRequest, checkSwapRequest } from '../restore-check.ts';
import type {
  RestoreStageRequest,
  RestoreStageResult,
  RestoreStore,
  RestoreSwapRequest,
  RestoreSwapResult,
} from '../restore-store.ts';
import { validateSessionId } from '../session-id.ts';
import type { RedisClient } from './redis-connection.ts';
import { sessionKeys } from './redis-keys.ts';
import { STAGE_SCRIPT, SWAP_SCRIPT } from './redis-restore-scripts.ts';
import type { RedisCall } from './redis-snapshots.ts';

interface RestoreCommands {
  shRestoreStage(stage: string, ...args: (string | Uint8Array)[]): Promise<unknown>;
  /** KEYS: log, epoch, idempotency hash, stage; ARGV: expected epoch, most entries to copy (redis-restore-scripts.ts). */
  shRestoreSwap(...args: string[]): Promise<unknown>;
}

const SWAP_STATUSES: readonly string[] = [
  'swapped',
  'behind',
  'conflict',
  'gap',
] satisfies RestoreSwapResult['status'][];

/** `EventStore.restore` of the Redis engine: a stage stream beside the log and two scripts (redis-restore-scripts.ts). */
export class RedisRestore implements RestoreStore {
  readonly #redis: RedisClient & RestoreCommands;
  readonly #prefix: string;
  readonly #call: RedisCall;
  readonly #replicas: number;
  readonly #waitMs: number;

  /**
   * `replicas`: the replicas a swap must reach before it resolves (the store's `waitReplicas`; a `WAIT` pipelined
   * after it, for at most half the command timeout): the restore deletes the archive after the swap, so a failover
   * must not lose it.
   */
  constructor(redis: RedisClient, prefix: string, call: RedisCall, replicas = 0, commandTimeoutMs = 2000) {
    redis.defineCommand('shRestoreStage', { numberOfKeys: 1, lua: STAGE_SCRIPT });
    redis.defineCommand('shRestoreSwap', { numberOfKeys: 4, lua: SWAP_SCRIPT });
    this.#redis = redis as RedisClient & RestoreCommands;
    this.#prefix = prefix;
    this.#call = call;
    this.#replicas = replicas;
    this.#waitMs = Math.max(1, Math.floor(commandTimeoutMs / 2));
  }

  async stage(request: RestoreStageRequest): Promise<RestoreStageResult> {
    checkStageRequest(request);
    const keys = sessionKeys(this.#prefix, request.sessionId);
    const args: (string | Uint8Array)[] = [String(request.firstSeq), String(request.ttlMs)];
    request.bodies.forEach((body, index) => args.push(body, String(request.times[index])));
    const reply = await this.#call('restore', () => this.#redis.shRestoreStage(keys.restoreStage, ...args));
    if (!Array.isArray(reply) || reply.length !== 2 || !['staged', 'gap'].includes(String(reply[0]))) {
      throw new StoreDataError("redis restore: the reply is not the stage script's");
    }
    const [status, nextSeq] = reply as [RestoreStageResult['status'], number];
    return { status, nextSeq };
  }

  async swap(request: RestoreSwapRequest): Promise<RestoreSwapResult> {
    checkSwapRequest(request);
    const keys = sessionKeys(this.#prefix, request.sessionId);
    const args = [keys.log, keys.epoch, keys.idempotency, keys.restoreStage, request.epoch, String(request.maxCopy)];
    const reply = await this.#call('restore', () => this.#swapThenWait(args));
    if (!Array.isArray(reply) || reply.length !== 6 || !SWAP_STATUSES.includes(String(reply[0]))) {
      throw new StoreDataError("redis restore: the reply is not the swap script's");
    }
    const [status, epoch, firstSeq, length, stagedNext, copied] = reply as [
      RestoreSwapResult['status'],
      string,
      number,
      number,
      number,
      number,
    ];
    return { status, epoch, firstSeq, headSeq: length - 1, stagedNext, copied };
  }

  /** The swap script; with replicas to reach, pipelined with a `WAIT` (to the session's master on a Cluster). */
  async #swapThenWait(args: string[]): Promise<unknown> {
    if (this.#replicas === 0) return this.#redis.shRestoreSwap(...args);
    const pipeline = this.#redis.pipeline() as ReturnType<RedisClient['pipeline']> & RestoreCommands;
    void pipeline.shRestoreSwap(...args);
    pipeline.call('WAIT', this.#replicas, this.#waitMs);
    const [[swapError, reply] = [null, undefined], [waitError, replicas] = [null, 0]] = (await pipeline.exec()) ?? [];
    if (swapError !== null) throw swapError;
    if (waitError !== null) throw waitError;
    if (Array.isArray(reply) && reply[0] === 'swapped' && Number(replicas) < this.#replicas) {
      throw new StoreUnavailableError(
        `redis restore: the swap reached ${Number(replicas)} of ${this.#replicas} replicas in time (the archive stays)`,
      );
    }
    return reply;
  }

  async discard(sessionId: string): Promise<boolean> {
    validateSessionId(sessionId);
    const key = sessionKeys(this.#prefix, sessionId).restoreStage;
    return (await this.#call('restore', () => this.#redis.del(key))) === 1;
  }
}
