import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { StoreUnavailableError, type EventStore } from '../store/event-store.ts';
import { placeholderBody } from '../store/redaction-plan.ts';
import { checkRedactionRequest } from '../store/redaction-check.ts';
import type { RedactionRequest, RedactionResult, RedactionStore } from '../store/redaction-store.ts';
import type { ArchiveBackend, ArchivedSession } from './archive-backend.ts';

/** How long a redaction waits for a running archive run of its session (it holds the session's archive lease). */
const LEASE_WAIT_MS = 15_000;
/** How long the redaction holds the archive lease (it gives it back when done; a dead node's lapses). */
const LEASE_MS = 60_000;
/** Most archived events read per page while collecting the bodies to redact. */
const READ_PAGE_EVENTS = 1_000;
const READ_PAGE_BYTES = 8 << 20;

/** The archived bodies of some seqs: their placeholders where they differ, and the originals those replace. */
interface ColdPlan {
  readonly placeholders: Map<number, Uint8Array>;
  readonly originals: Map<number, Uint8Array>;
}

/**
 * Redaction over both tiers (docs/security.md#redaction): the requested seqs the archive holds are rewritten there
 * first (one atomic `rewrite`: the original bytes leave the archive), then the hot store redacts its own seqs and
 * appends the one audit event naming and digesting both (`RedactionRequest.archived`), under a new epoch; the
 * archive then moves to that epoch, so archiving goes on. The whole step holds the session's archive lease: no
 * archive run copies a body between the two tiers' rewrites.
 *
 * A failure after the archive rewrite and before the hot commit leaves the archived seqs redacted (their bytes are
 * gone) without an audit event, and the call rejects; a retry redacts the rest, and its audit names what it changed.
 */
export class TieredRedactions implements RedactionStore {
  readonly #hot: EventStore;
  readonly #archive: ArchiveBackend;

  constructor(hot: EventStore, archive: ArchiveBackend) {
    this.#hot = hot;
    this.#archive = archive;
  }

  priorEpochs(sessionId: string, epoch: string): Promise<readonly string[]> {
    return this.#hot.redactions.priorEpochs(sessionId, epoch);
  }

  async redact(request: RedactionRequest): Promise<RedactionResult> {
    const seqs = checkRedactionRequest(request);
    const token = `redact:${randomUUID()}`;
    await this.#lease(request.sessionId, token);
    try {
      return await this.#redactHolding(request, seqs);
    } finally {
      await this.#hot.archiveLease.release(request.sessionId, token).catch(() => false);
    }
  }

  async #redactHolding(request: RedactionRequest, seqs: readonly number[]): Promise<RedactionResult> {
    const { sessionId } = request;
    const head = await this.#hot.head(sessionId);
    const cold = await this.#coldOf(sessionId, head.epoch);
    const expected = request.expectedEpoch;
    // No archive to change, or a request the hot store refuses as a whole (other epoch, seqs past the head).
    if (cold === undefined || (expected !== undefined && expected !== head.epoch) || seqs.at(-1)! > head.headSeq) {
      return this.#hot.redactions.redact(request);
    }
    const archived = seqs.filter((seq) => seq >= cold.startSeq && seq < cold.nextSeq);
    const plan = await this.#planCold(sessionId, cold, archived);
    if (plan.placeholders.size > 0) await this.#archive.rewrite(sessionId, cold.epoch, plan.placeholders);
    const result = await this.#hot.redactions.redact({ ...request, archived: plan.originals });
    if (result.status !== 'redacted') return result;
    // The archive goes on in the epoch the redaction made (the archiver would move it too, under its lease).
    if (result.epoch !== cold.epoch) await this.#archive.rewrite(sessionId, cold.epoch, new Map(), result.epoch);
    const changed = new Set([...result.seqs, ...plan.placeholders.keys()]);
    const held = new Set(archived);
    const notArchived = result.cold.filter((seq) => !held.has(seq));
    const left = new Set([...changed, ...notArchived]);
    return {
      ...result,
      seqs: [...changed].sort((a, b) => a - b),
      unchanged: seqs.filter((seq) => !left.has(seq)),
      cold: notArchived,
    };
  }

  /** The archive when it holds this session's prefix: in `epoch`, or in one a redaction replaced by it. */
  async #coldOf(sessionId: string, epoch: string): Promise<ArchivedSession | undefined> {
    const cold = await this.#archive.describe(sessionId);
    if (cold === undefined || cold.epoch === epoch) return cold;
    return (await this.#hot.redactions.priorEpochs(sessionId, epoch)).includes(cold.epoch) ? cold : undefined;
  }

  /** Reads the archived bodies of `seqs` (ascending) and plans their placeholders. */
  async #planCold(sessionId: string, cold: ArchivedSession, seqs: readonly number[]): Promise<ColdPlan> {
    const plan: ColdPlan = { placeholders: new Map(), originals: new Map() };
    let at = 0;
    while (at < seqs.length) {
      const from = seqs[at]!;
      const limit = Math.min(READ_PAGE_EVENTS, seqs.at(-1)! - from + 1);
      const page = await this.#archive.read(sessionId, from, limit, READ_PAGE_BYTES);
      if (page.epoch !== cold.epoch || page.firstSeq !== from || page.bodies.length === 0) {
        throw new StoreUnavailableError(`redact: the archive of ${sessionId} changed during the redaction`);
      }
      const end = from + page.bodies.length;
      for (; at < seqs.length && seqs[at]! < end; at++) {
        const seq = seqs[at]!;
        const body = page.bodies[seq - from]!;
        const placeholder = placeholderBody(sessionId, seq, body);
        if (placeholder === undefined) continue;
        plan.placeholders.set(seq, placeholder);
        plan.originals.set(seq, body);
      }
    }
    return plan;
  }

  /** Takes the session's archive lease, waiting for a running archive run to end (bounded). */
  async #lease(sessionId: string, token: string): Promise<void> {
    const deadline = Date.now() + LEASE_WAIT_MS;
    for (let wait = 20; ; wait = Math.min(wait * 2, 1_000)) {
      if (await this.#hot.archiveLease.acquire(sessionId, token, LEASE_MS)) return;
      if (Date.now() + wait > deadline) {
        throw new StoreUnavailableError(`redact: ${sessionId} is being archived; try again`);
      }
      await delay(wait);
    }
  }
}
