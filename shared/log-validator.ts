import { invalidEvent as invalid, isNonNegativeSafeInteger, surfaceViolation as violation } from './check-helpers.ts';
import { describeValue } from './describe-value.ts';
import { SessionLogError } from './errors.ts';
import { checkKnownData } from './event-shape.ts';
import { isKnownType, isSurfaceType, isWellFormedEventType } from './event-types.ts';
import type { SessionEvent, SurfaceOp, ValidatedDraft } from './events.ts';
import { freezeJson } from './freeze-json.ts';
import { SurfaceIndex } from './surface-index.ts';
import type { EarlierEvent } from './surface-rules.ts';
import { applySurfaceEvent, parseSourceEventSeqs, parseSurfaceOp } from './surface-rules.ts';

const draftKeys: ReadonlySet<string> = new Set(['type', 'data', 'surfaceOp', 'sourceEventSeqs']);
const storedKeys: ReadonlySet<string> = new Set(['seq', 'type', 'time', 'data', 'surfaceOp', 'sourceEventSeqs']);

/**
 * Checks one draft (or, when `stored`, one committed event) in isolation: envelope, lossless JSON, the known
 * type's data shape, the form of `surfaceOp` and `sourceEventSeqs`. Returns a normalized frozen draft.
 */
function normalize(input: unknown, seq: number, stored: boolean): ValidatedDraft {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) invalid('an event must be an object');
  const fields = input as Record<string, unknown>;
  const allowed = stored ? storedKeys : draftKeys;
  for (const key of Object.keys(fields)) {
    if (!allowed.has(key) && fields[key] !== undefined) invalid(`unknown envelope field '${key}'`, key);
  }
  const { type, data, surfaceOp, sourceEventSeqs } = fields;
  if (!isWellFormedEventType(type)) invalid(`type must be a '<domain>/<name>' string, got ${describeValue(type)}`);
  if (data === undefined) invalid('is required', 'data');
  const frozenData = freezeJson(data, 'data');
  if (isKnownType(type)) checkKnownData(type, frozenData);
  if (!isSurfaceType(type)) {
    if (surfaceOp !== undefined) violation(`only surface types carry a surfaceOp, not ${type}`, 'surfaceOp');
    if (sourceEventSeqs !== undefined) {
      violation(`only surface types carry sourceEventSeqs, not ${type}`, 'sourceEventSeqs');
    }
    return Object.freeze({ type, data: frozenData });
  }
  let op: SurfaceOp = 'append';
  if (surfaceOp !== undefined) op = parseSurfaceOp(surfaceOp);
  else if (stored) violation('a stored surface event must carry its surfaceOp', 'surfaceOp');
  if (sourceEventSeqs === undefined) return Object.freeze({ type, data: frozenData, surfaceOp: op });
  const sources = parseSourceEventSeqs(sourceEventSeqs, type, seq);
  return Object.freeze({ type, data: frozenData, surfaceOp: op, sourceEventSeqs: sources });
}

function withSeq(error: unknown, seq: number, stored: boolean): unknown {
  if (!(error instanceof SessionLogError)) return error;
  const path = error.path === undefined ? {} : { path: error.path };
  if (stored) {
    return new SessionLogError('INVALID_LOG', `event ${seq}: ${error.code}: ${error.message}`, {
      ...path,
      seq,
      cause: error,
    });
  }
  return new SessionLogError(error.code, `event ${seq}: ${error.message}`, { ...path, seq, cause: error });
}

/**
 * The validation state of one log: its committed events and the surface they fold to. Checks batches of drafts
 * (append) or of committed events (replay) as if appended after the committed events, each seeing the ones
 * before it, and either keeps the surface changes (`commit`) or undoes them.
 */
export class LogValidator {
  readonly #events: readonly SessionEvent[];
  readonly #surface = new SurfaceIndex();

  /** @param events the committed log, owned (and appended to) by the caller after each committed batch. */
  constructor(events: readonly SessionEvent[]) {
    this.#events = events;
  }

  /**
   * Validates drafts at seqs `events.length`.. Throws the first failure with `seq` set (the seq it would have had).
   * With `commit`, the surface keeps the batch; the caller must then append the events.
   */
  checkDrafts(drafts: readonly unknown[], commit: boolean): ValidatedDraft[] {
    return this.#run(drafts, commit, false) as ValidatedDraft[];
  }

  /**
   * Validates committed events (`seq` must equal their position, `time` a non-negative safe integer, no default
   * surfaceOp). Throws `INVALID_LOG` with `seq` and the underlying error as `cause`. Returns frozen copies.
   */
  checkStored(events: readonly unknown[], commit: boolean): SessionEvent[] {
    return this.#run(events, commit, true) as SessionEvent[];
  }

  /**
   * Folds events into the surface (committing it) that were built from drafts `checkDrafts` returned at this very
   * length (given their seq and time): their content is not checked again, only `seq`, `time` and the surface
   * rules. For a node's own commits, whose drafts it has just validated.
   */
  commitChecked(events: readonly SessionEvent[]): SessionEvent[] {
    return this.#run(events, true, true, true) as SessionEvent[];
  }

  #run(
    inputs: readonly unknown[],
    commit: boolean,
    stored: boolean,
    checked = false,
  ): (ValidatedDraft | SessionEvent)[] {
    const firstSeq = this.#events.length;
    const pending: ValidatedDraft[] = [];
    const results: (ValidatedDraft | SessionEvent)[] = [];
    const lookup = (seq: number): EarlierEvent | undefined =>
      seq < firstSeq ? this.#events[seq] : pending[seq - firstSeq];
    this.#surface.begin();
    let seq = firstSeq;
    try {
      for (const input of inputs) {
        const time = stored ? storedTime(input, seq) : 0;
        const draft = checked ? (input as ValidatedDraft) : normalize(input, seq, stored);
        if (draft.surfaceOp !== undefined) {
          const { type, data, surfaceOp, sourceEventSeqs } = draft;
          applySurfaceEvent(this.#surface, { type, data, surfaceOp, sourceEventSeqs }, seq, lookup);
        }
        pending.push(draft);
        results.push(checked ? (input as SessionEvent) : stored ? toEvent(draft, seq, time) : draft);
        seq++;
      }
    } catch (error) {
      this.#surface.rollback();
      throw withSeq(error, seq, stored);
    }
    if (commit) this.#surface.release();
    else this.#surface.rollback();
    return results;
  }
}

/** Checks a stored event's `seq` (must be `seq`) and returns its `time`. */
function storedTime(input: unknown, seq: number): number {
  if (typeof input !== 'object' || input === null) invalid('an event must be an object');
  const { seq: givenSeq, time } = input as { seq?: unknown; time?: unknown };
  if (givenSeq !== seq) invalid(`seq must be ${seq} (its position in the log), got ${describeValue(givenSeq)}`, 'seq');
  if (!isNonNegativeSafeInteger(time)) invalid('must be a non-negative safe integer (epoch ms)', 'time');
  return time;
}

/** The committed, frozen event of a validated draft. */
export function toEvent(draft: ValidatedDraft, seq: number, time: number): SessionEvent {
  const { type, data, surfaceOp, sourceEventSeqs } = draft;
  const event: Record<string, unknown> = { seq, type, time, data };
  if (surfaceOp !== undefined) event['surfaceOp'] = surfaceOp;
  if (sourceEventSeqs !== undefined) event['sourceEventSeqs'] = sourceEventSeqs;
  return Object.freeze(event) as unknown as SessionEvent;
}
