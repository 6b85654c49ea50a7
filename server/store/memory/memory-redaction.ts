import type { SessionEvent } from '../../../shared/index.ts';
import { decodeEventBody, encodeEventBody, toSessionEvent } from '../codec/event-codec.ts';
import { NO_EPOCH, StoreUnavailableError } from '../event-store.ts';
import { newEpoch } from '../new-epoch.ts';
import { planRedaction } from '../redaction-plan.ts';
import { checkRedactionRequest } from '../redaction-check.ts';
import {
  MAX_PRIOR_EPOCHS,
  type RedactionRequest,
  type RedactionResult,
  type RedactionStore,
} from '../redaction-store.ts';
import type { MemoryBackend } from './memory-backend.ts';

/** The memory engine's redaction: the same plan as the Redis engine's, applied in one synchronous step. */
export class MemoryRedactions implements RedactionStore {
  readonly #backend: MemoryBackend;
  readonly #isClosed: () => boolean;

  constructor(backend: MemoryBackend, isClosed: () => boolean) {
    this.#backend = backend;
    this.#isClosed = isClosed;
  }

  async priorEpochs(sessionId: string, epoch: string): Promise<readonly string[]> {
    if (this.#isClosed()) throw new StoreUnavailableError('the store is closed');
    const known = this.#backend.priorEpochs.get(sessionId);
    const prior: string[] = [];
    for (let at = known?.get(epoch); at !== undefined && prior.length < MAX_PRIOR_EPOCHS; at = known?.get(at)) {
      prior.push(at);
    }
    return prior;
  }

  async redact(request: RedactionRequest): Promise<RedactionResult> {
    if (this.#isClosed()) throw new StoreUnavailableError('the store is closed');
    const seqs = checkRedactionRequest(request);
    const session = this.#backend.peek(request.sessionId);
    const epoch = session?.epoch ?? NO_EPOCH;
    const events = session?.events ?? [];
    const expected = request.expectedEpoch ?? NO_EPOCH;
    if (expected !== NO_EPOCH && expected !== epoch) return { status: 'conflict', epoch };
    const firstHeld = session?.firstSeq ?? 0;
    const headSeq = firstHeld + events.length - 1;
    const beyond = seqs.filter((seq) => seq > headSeq);
    if (session === undefined || beyond.length > 0) {
      return { status: 'out-of-range', epoch, headSeq, seqs: session === undefined ? seqs : beyond };
    }
    const cold = seqs.filter((seq) => seq < firstHeld);
    const hot = seqs.filter((seq) => seq >= firstHeld);
    const stored = hot.map((seq) => ({ seq, body: encodeEventBody(events[seq - firstHeld]!) }));
    const plan = planRedaction(request.sessionId, stored, request.by, request.reason, request.archived);
    if (plan.audit === undefined) {
      return { status: 'redacted', epoch, seqs: [], unchanged: plan.unchanged, cold, auditSeq: undefined };
    }
    const rewritten: SessionEvent[] = events.slice();
    plan.seqs.forEach((seq, index) => {
      const draft = decodeEventBody(plan.bodies[index]!, 'memory');
      rewritten[seq - firstHeld] = toSessionEvent(draft, seq, events[seq - firstHeld]!.time);
    });
    const auditSeq = headSeq + 1;
    const audit = toSessionEvent(decodeEventBody(encodeEventBody(plan.audit), 'memory'), auditSeq, Date.now());
    rewritten.push(audit);
    const next = newEpoch();
    const prior = this.#backend.priorEpochs.get(request.sessionId) ?? new Map<string, string>();
    this.#backend.priorEpochs.set(request.sessionId, prior.set(next, epoch));
    this.#backend.rewrite(request.sessionId, {
      epoch: next,
      events: rewritten,
      firstSeq: firstHeld,
      idempotency: session.idempotency,
    });
    return { status: 'redacted', epoch: next, seqs: plan.seqs, unchanged: plan.unchanged, cold, auditSeq };
  }
}
