import type { SessionEvent } from '../../shared/index.ts';
import { batchDigest } from './batch-digest.ts';
import type { ValidatedDraft } from './event-store.ts';

/** Deep equality of two JSON values (or undefined); object key order does not matter. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item: unknown, index) => jsonEqual(item, b[index]));
  }
  const left = a as Readonly<Record<string, unknown>>;
  const right = b as Readonly<Record<string, unknown>>;
  const keys = Object.keys(left);
  if (keys.length !== Object.keys(right).length) return false;
  return keys.every((key) => Object.hasOwn(right, key) && jsonEqual(left[key], right[key]));
}

/**
 * Whether a retried batch is the one an idempotency key committed: same types, data, surface ops and provenance
 * in the same order (object key order does not matter), compared with the stored events themselves. Keys
 * remembered by older versions carry a digest of their batch instead (`stored` is then not needed).
 */
export function isSameBatch(
  drafts: readonly ValidatedDraft[],
  stored: readonly SessionEvent[],
  legacyDigest = '',
): boolean {
  if (legacyDigest !== '') return batchDigest(drafts) === legacyDigest;
  if (drafts.length !== stored.length) return false;
  return drafts.every((draft, index) => {
    const event = stored[index]!;
    return (
      draft.type === event.type &&
      jsonEqual(draft.data, event.data) &&
      jsonEqual(draft.surfaceOp, event.surfaceOp) &&
      jsonEqual(draft.sourceEventSeqs, event.sourceEventSeqs)
    );
  });
}
