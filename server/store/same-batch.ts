import { jsonEquals, type JsonValue, type SessionEvent } from '../../shared/index.ts';
import type { ValidatedDraft } from './event-store.ts';

/**
 * Whether a retried batch is the one an idempotency key committed: same types, data, surface ops and provenance
 * in the same order (object key order does not matter), compared with the stored events themselves.
 */
export function isSameBatch(drafts: readonly ValidatedDraft[], stored: readonly SessionEvent[]): boolean {
  if (drafts.length !== stored.length) return false;
  // Event fields are JSON (their typed shapes have no index signature, hence the casts).
  const same = (left: unknown, right: unknown): boolean => jsonEquals(left as JsonValue, right as JsonValue);
  return drafts.every((draft, index) => {
    const event = stored[index]!;
    return (
      draft.type === event.type &&
      same(draft.data, event.data) &&
      same(draft.surfaceOp, event.surfaceOp) &&
      same(draft.sourceEventSeqs, event.sourceEventSeqs)
    );
  });
}
