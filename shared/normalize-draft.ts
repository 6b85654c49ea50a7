import type { EventDraft, SurfaceOp, ValidatedDraft } from './events.ts';
import { isSurfaceType } from './event-types.ts';
import { freezeJson } from './freeze-json.ts';

/** Drafts returned by `normalizeDraft`: frozen and already normalized, so they are returned as they are. */
const normalizedDrafts = new WeakSet<ValidatedDraft>();

/**
 * A writer's draft as it goes on the wire or into a commit: `data` checked as lossless JSON and deep-frozen (later
 * changes to the caller's objects cannot leak into a retry or the log), `surfaceOp` defaulted to `'append'` on
 * surface types as the core does, `surfaceOp` and `sourceEventSeqs` copied. Throws `SessionLogError` (INVALID_JSON)
 * for bad data, surfaceOp or sourceEventSeqs. Shape and surface rules are checked later, by `Session.check` on the hub. A draft this function
 * returned is returned as it is (it is already frozen and normalized).
 */
export function normalizeDraft(draft: EventDraft): ValidatedDraft {
  if (normalizedDrafts.has(draft as ValidatedDraft)) return draft as ValidatedDraft;
  const data = freezeJson(draft.data);
  const surfaceOp = draft.surfaceOp ?? (isSurfaceType(draft.type) ? 'append' : undefined);
  const normalized: { -readonly [K in keyof ValidatedDraft]: ValidatedDraft[K] } = { type: draft.type, data };
  // Checked and copied as lossless JSON like `data` (their form is checked by the core, on the hub).
  if (surfaceOp !== undefined) normalized.surfaceOp = freezeJson(surfaceOp, 'surfaceOp') as SurfaceOp;
  if (draft.sourceEventSeqs !== undefined) {
    normalized.sourceEventSeqs = freezeJson(draft.sourceEventSeqs, 'sourceEventSeqs') as readonly number[];
  }
  const frozen = Object.freeze(normalized);
  normalizedDrafts.add(frozen);
  return frozen;
}
