import type { EventDraft, SurfaceOp, ValidatedDraft } from './events.ts';
import { isSurfaceType } from './event-types.ts';
import { freezeJson } from './freeze-json.ts';

/**
 * A writer's draft as it goes on the wire or into a commit: `data` checked as lossless JSON and deep-frozen (later
 * changes to the caller's objects cannot leak into a retry or the log), `surfaceOp` defaulted to `'append'` on
 * surface types as the core does, `surfaceOp` and `sourceEventSeqs` copied. Throws `SessionLogError` (INVALID_JSON)
 * for bad data. Shape and surface rules are checked later, by `Session.check` on the hub.
 */
export function normalizeDraft(draft: EventDraft): ValidatedDraft {
  const data = freezeJson(draft.data);
  const surfaceOp = draft.surfaceOp ?? (isSurfaceType(draft.type) ? 'append' : undefined);
  const normalized: { -readonly [K in keyof ValidatedDraft]: ValidatedDraft[K] } = { type: draft.type, data };
  if (surfaceOp !== undefined) normalized.surfaceOp = copySurfaceOp(surfaceOp);
  if (draft.sourceEventSeqs !== undefined) normalized.sourceEventSeqs = Object.freeze([...draft.sourceEventSeqs]);
  return Object.freeze(normalized);
}

function copySurfaceOp(surfaceOp: SurfaceOp): SurfaceOp {
  return typeof surfaceOp === 'string' ? surfaceOp : Object.freeze({ ...surfaceOp });
}
