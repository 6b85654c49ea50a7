import { createHash } from 'node:crypto';
import { REDACTION_AUDIT_TYPE, redactEventData, type RedactionAudit } from '../../shared/redaction.ts';
import { decodeEventBody, encodeEventBody } from './codec/event-codec.ts';
import type { ValidatedDraft } from './event-store.ts';

/** What one redaction rewrites, computed from the stored bodies (both engines). */
export interface RedactionPlan {
  /** The seqs whose body changes, ascending. */
  readonly seqs: number[];
  /** Their new bodies (placeholders), in the same order. */
  readonly bodies: Buffer[];
  /** Their stored bodies now, in the same order (to check nothing changed meanwhile; never written anywhere). */
  readonly originals: Uint8Array[];
  /** The seqs whose body is already its placeholder. */
  readonly unchanged: number[];
  /** The audit event's draft (undefined when nothing changes). */
  readonly audit: ValidatedDraft | undefined;
}

/** The placeholder draft of a stored event: same type, surface op and sources; data redacted. */
export function redactedDraft(draft: ValidatedDraft): ValidatedDraft {
  return { ...draft, data: redactEventData(draft.type, draft.data) };
}

/** The placeholder body of a stored body; undefined when the body already is its placeholder (nothing to remove). */
export function placeholderBody(sessionId: string, seq: number, body: Uint8Array): Buffer | undefined {
  const redacted = encodeEventBody(redactedDraft(decodeEventBody(body, `${sessionId} seq ${seq}`)));
  return redacted.equals(body) ? undefined : redacted;
}

/** `sha256:<hex>` of bodies, each preceded by its length (so the digest names the removed bytes, not a mix). */
export function bodiesDigest(bodies: readonly Uint8Array[]): string {
  const hash = createHash('sha256');
  for (const body of bodies) {
    hash.update(`${body.byteLength}:`);
    hash.update(body);
  }
  return `sha256:${hash.digest('hex')}`;
}

/** The audit event of a redaction. */
export function auditDraft(by: string, reason: string, seqs: readonly number[], digest: string): ValidatedDraft {
  const data: RedactionAudit = { by, reason, seqs: [...seqs], digest };
  return { type: REDACTION_AUDIT_TYPE, data };
}

/**
 * Plans the redaction of `stored` (seq → stored body, ascending) for `by` and `reason`. `archived` holds the original
 * bodies of seqs a cold tier held and its caller rewrote there (`RedactionRequest.archived`): the audit names and
 * digests them with the stored ones (a seq in both counts once), and is written even when nothing stored changes.
 */
export function planRedaction(
  sessionId: string,
  stored: readonly { readonly seq: number; readonly body: Uint8Array }[],
  by: string,
  reason: string,
  archived: ReadonlyMap<number, Uint8Array> = new Map(),
): RedactionPlan {
  const plan: RedactionPlan = { seqs: [], bodies: [], originals: [], unchanged: [], audit: undefined };
  for (const { seq, body } of stored) {
    const redacted = placeholderBody(sessionId, seq, body);
    if (redacted === undefined) {
      plan.unchanged.push(seq);
      continue;
    }
    plan.seqs.push(seq);
    plan.bodies.push(redacted);
    plan.originals.push(body);
  }
  const removed = new Map<number, Uint8Array>(archived);
  plan.seqs.forEach((seq, index) => removed.set(seq, plan.originals[index]!));
  if (removed.size === 0) return plan;
  const seqs = [...removed.keys()].sort((a, b) => a - b);
  return { ...plan, audit: auditDraft(by, reason, seqs, bodiesDigest(seqs.map((seq) => removed.get(seq)!))) };
}
