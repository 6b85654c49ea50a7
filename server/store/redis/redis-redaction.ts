import { createHash } from 'node:crypto';
import { encodeEventBody } from '../codec/event-codec.ts';
import { NO_EPOCH, StoreDataError, StoreUnavailableError } from '../event-store.ts';
import { newEpoch } from '../new-epoch.ts';
import { planRedaction } from '../redaction-plan.ts';
import { checkRedactionRequest } from '../redaction-check.ts';
import {
  MAX_PRIOR_EPOCHS,
  type RedactionRequest,
  type RedactionResult,
  type RedactionStore,
} from '../redaction-store.ts';
import type { RedisClient } from './redis-connection.ts';
import { FIELD_BODY } from './redis-entries.ts';
import { BASE_FIELD, sessionKeys, type SessionKeys } from './redis-keys.ts';
import { parseBase } from './redis-trim.ts';
import { PRIOR_EPOCHS_SCRIPT, REDACT_SCRIPT } from './redis-redaction-scripts.ts';
import { withPublishCommand } from './redis-scripts.ts';
import type { RedisCall } from './redis-snapshots.ts';
import { replicatedScript, type ReplicaWait, type ReplicatedScript } from './replica-wait.ts';

interface RedactionCommands {
  shRedact(...args: (string | Buffer)[]): Promise<unknown>;
  shPriorEpochs(epochs: string, epoch: string, limit: number): Promise<unknown>;
}

type Entry = [id: Buffer, fields: Buffer[]];

/** How often a redaction is planned again when a racing redaction or deletion moved the session under it. */
const ATTEMPTS = 5;

/** What one read of the session says: its epoch, first and last held seq, and the requested entries' bodies. */
interface SessionView {
  readonly epoch: string;
  readonly firstHeld: number;
  readonly headSeq: number;
  readonly bodies: (Buffer | undefined)[];
}

function seqOf(entry: Entry | undefined): number | undefined {
  if (entry === undefined) return undefined;
  const id = entry[0].toString('latin1');
  return Number(id.slice(0, id.indexOf('-')));
}

function bodyOf(entry: Entry | undefined): Buffer | undefined {
  if (entry === undefined) return undefined;
  const fields = entry[1];
  for (let index = 0; index + 1 < fields.length; index += 2) {
    if (fields[index]![0] === FIELD_BODY && fields[index]!.length === 1) return fields[index + 1];
  }
  return undefined;
}

/**
 * The Redis engine's redaction: the entries are read and the plan made on the node (decoding, placeholders,
 * digest), then one script checks that the epoch and every planned body are unchanged and rewrites the stream
 * (redis-redaction-scripts.ts); a session moved meanwhile is planned again.
 */
export class RedisRedactions implements RedactionStore {
  readonly #redis: RedisClient & RedactionCommands;
  readonly #prefix: string;
  readonly #call: RedisCall;
  readonly #replicated: { readonly wait: ReplicaWait; readonly script: ReplicatedScript } | undefined;

  /**
   * `replicaWait`: the store's, when its writes wait for replicas (`waitReplicas`): a redaction then waits too, so
   * that one acknowledged survives a failover (else the promoted replica would serve the original bodies again).
   */
  constructor(
    redis: RedisClient,
    prefix: string,
    call: RedisCall,
    publish: 'PUBLISH' | 'SPUBLISH',
    replicaWait?: ReplicaWait,
  ) {
    const script = { numberOfKeys: 5, lua: withPublishCommand(REDACT_SCRIPT, publish) };
    redis.defineCommand('shRedact', script);
    redis.defineCommand('shPriorEpochs', { numberOfKeys: 1, lua: PRIOR_EPOCHS_SCRIPT });
    this.#redis = redis as RedisClient & RedactionCommands;
    this.#prefix = prefix;
    this.#call = call;
    const wrote = (reply: unknown): boolean => Array.isArray(reply) && reply[0] === 'redacted';
    this.#replicated =
      replicaWait === undefined
        ? undefined
        : { wait: replicaWait, script: replicatedScript('shRedact', script, 'redact', wrote) };
  }

  async redact(request: RedactionRequest): Promise<RedactionResult> {
    const seqs = checkRedactionRequest(request);
    const keys = sessionKeys(this.#prefix, request.sessionId);
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const view = await this.#view(keys, seqs);
      const { epoch, firstHeld, headSeq } = view;
      const expected = request.expectedEpoch ?? NO_EPOCH;
      if (expected !== NO_EPOCH && expected !== epoch) return { status: 'conflict', epoch };
      const beyond = seqs.filter((seq) => seq > headSeq);
      if (epoch === NO_EPOCH || beyond.length > 0) {
        return { status: 'out-of-range', epoch, headSeq, seqs: epoch === NO_EPOCH ? seqs : beyond };
      }
      const cold = seqs.filter((seq) => seq < firstHeld);
      const stored = seqs.flatMap((seq, index) => {
        if (seq < firstHeld) return [];
        const body = view.bodies[index];
        if (body === undefined)
          throw new StoreDataError(`redis redact: ${request.sessionId} has no entry for seq ${seq}`);
        return [{ seq, body }];
      });
      const plan = planRedaction(request.sessionId, stored, request.by, request.reason, request.archived);
      if (plan.audit === undefined) {
        return { status: 'redacted', epoch, seqs: [], unchanged: plan.unchanged, cold, auditSeq: undefined };
      }
      const next = newEpoch();
      const args: (string | Buffer)[] = [keys.log, keys.epoch, keys.snapshot, keys.epochs, keys.idempotency];
      args.push(epoch, next, keys.channel);
      args.push(encodeEventBody(plan.audit), String(plan.seqs.length));
      plan.seqs.forEach((seq, index) => {
        args.push(String(seq), createHash('sha1').update(plan.originals[index]!).digest('hex'), plan.bodies[index]!);
      });
      const replicated = this.#replicated;
      const reply = await this.#call('redact', () =>
        replicated === undefined ? this.#redis.shRedact(...args) : replicated.wait.run(replicated.script, args),
      );
      if (!Array.isArray(reply)) throw new StoreUnavailableError("redis redact: the reply is not the script's");
      if (reply[0] === 'moved') continue;
      const auditSeq = Number(reply[2]);
      return { status: 'redacted', epoch: next, seqs: plan.seqs, unchanged: plan.unchanged, cold, auditSeq };
    }
    throw new StoreUnavailableError(`redis redact: ${request.sessionId} kept changing under the redaction`);
  }

  /** One script (redis-redaction-scripts.ts): the whole walk in one round trip, on the session's one key. */
  async priorEpochs(sessionId: string, epoch: string): Promise<readonly string[]> {
    const { epochs } = sessionKeys(this.#prefix, sessionId);
    const reply = await this.#call('redact', () => this.#redis.shPriorEpochs(epochs, epoch, MAX_PRIOR_EPOCHS));
    const isString = (item: unknown): item is string => typeof item === 'string';
    if (!Array.isArray(reply) || !reply.every(isString)) {
      throw new StoreUnavailableError("redis priorEpochs: the reply is not the script's");
    }
    return reply;
  }

  /**
   * The epoch, the first and last entry, the base (first seq held after a trim: it names the first and last seq of a
   * stream trimmed empty) and each requested entry, in one `MULTI` (reads only).
   */
  async #view(keys: SessionKeys, seqs: readonly number[]): Promise<SessionView> {
    const { log } = keys;
    const replies = await this.#call('redact', async () => {
      const transaction = this.#redis.multi().get(keys.epoch).hget(keys.idempotency, BASE_FIELD);
      transaction.xrangeBuffer(log, '-', '+', 'COUNT', 1).xrevrangeBuffer(log, '+', '-', 'COUNT', 1);
      for (const seq of seqs) transaction.xrangeBuffer(log, `${seq}-1`, `${seq}-1`);
      const results = await transaction.exec();
      if (results === null) throw new StoreUnavailableError('redis redact: the transaction was discarded');
      for (const [error] of results) if (error !== null) throw error;
      return results.map(([, result]) => result);
    });
    const [epoch, base, first, last, ...entries] = replies as [
      string | null,
      string | null,
      Entry[],
      Entry[],
      ...Entry[][],
    ];
    const firstHeld = seqOf(first[0]) ?? parseBase(base);
    return {
      epoch: epoch ?? NO_EPOCH,
      firstHeld,
      headSeq: seqOf(last[0]) ?? firstHeld - 1,
      bodies: entries.map((entry) => bodyOf(entry[0])),
    };
  }
}
