import { invalidEvent as invalid, isNonNegativeSafeInteger, surfaceViolation as violation } from './check-helpers.ts';
import { describeValue } from './describe-value.ts';
import { SessionLogError } from './errors.ts';
import { checkKnownData } from './event-shape.ts';
import { isKnownType, isSurfaceType, isWellFormedEventType } from './event-types.ts';
import type { SessionEvent, SurfaceOp, ValidatedDraft } from './events.ts';
import { freezeJson } from './freeze-json.ts';
import { SurfaceIndex } from './surface-index.ts';
import type { EarlierEvent } from './surface-rules.ts';
import { applySurfaceEvent, parseSourceEventSeqs, parseSurfaceOp, withoutContent } from './surface-rules.ts';
import { LifecycleTracker } from './lifecycle-tracker.ts';
import type { JsonValue } from './json.ts';

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
  const rule = error.rule === undefined ? {} : { rule: error.rule };
  return new SessionLogError(error.code, `event ${seq}: ${error.message}`, { ...path, ...rule, seq, cause: error });
}

/** What a validator may be asked to enforce beyond the surface rules. */
export interface LogValidatorOptions {
  /**
   * Refuse drafts that break a lifecycle rule (`LIFECYCLE_VIOLATION`, with the rule): the log stays a valid
   * prefix (an open last turn is fine). Committed events are folded in whatever they hold. Default false.
   */
  readonly lifecycle?: boolean;
}

/** Surface nodes the rules look back at (a leading system/message, a pruned tool/result), see `remembered`. */
const rememberedTypes: ReadonlySet<string> = new Set(['system/message', 'tool/result']);

/**
 * The validation state of one log, without the log: its length, the surface it folds to, what the surface rules
 * need of the nodes still on it (the type of system/message nodes, the data of tool/result nodes without their
 * content) and, with `lifecycle`, the open turn. Checks batches of drafts (append) or of committed events (replay)
 * as if appended at `length`, each seeing the ones before it, and either keeps the changes (`commit`) or undoes
 * them. Its size grows with the surface, not with the bytes of the log.
 */
export class LogValidator {
  #length = 0;
  readonly #surface = new SurfaceIndex();
  /** seq → what the rules need of that surface node; may keep nodes replaced since (pruned in `#remember`). */
  readonly #nodes = new Map<number, EarlierEvent>();
  #nodeBytes = 0;
  readonly #lifecycle: LifecycleTracker | undefined;

  constructor(options: LogValidatorOptions = {}) {
    this.#lifecycle = options.lifecycle === true ? new LifecycleTracker() : undefined;
  }

  /** Number of events folded in (= the seq the next event gets). */
  get length(): number {
    return this.#length;
  }

  /** Whether drafts are checked against the lifecycle rules. */
  get enforcesLifecycle(): boolean {
    return this.#lifecycle !== undefined;
  }

  /** Rough heap size of the state in bytes (for caches with a byte budget). */
  get approximateBytes(): number {
    return 256 + this.#surface.byteLength + this.#nodeBytes + (this.#lifecycle?.approximateBytes ?? 0);
  }

  /**
   * Validates drafts at seqs `length`.. Throws the first failure with `seq` set (the seq it would have had).
   * With `commit`, the validator keeps the batch; the caller must then append the events.
   */
  checkDrafts(drafts: readonly unknown[], commit: boolean): ValidatedDraft[] {
    return this.#run(drafts, commit, false) as ValidatedDraft[];
  }

  /**
   * Validates committed events (`seq` must equal their position, `time` a non-negative safe integer, no default
   * surfaceOp). Throws `INVALID_LOG` with `seq` and the underlying error as `cause`. Returns frozen copies.
   * Lifecycle violations in committed events are not errors (the log may have been written without enforcement).
   */
  checkStored(events: readonly unknown[], commit: boolean): SessionEvent[] {
    return this.#run(events, commit, true) as SessionEvent[];
  }

  /**
   * Folds events into the state (committing it) that were built from drafts `checkDrafts` returned at this very
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
    const firstSeq = this.#length;
    const pending: ValidatedDraft[] = [];
    const results: (ValidatedDraft | SessionEvent)[] = [];
    const lookup = (seq: number): EarlierEvent | undefined =>
      seq < firstSeq ? this.#nodes.get(seq) : pending[seq - firstSeq];
    const lifecycle = this.#lifecycle;
    const lifecycleBefore = lifecycle?.snapshot();
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
        if (lifecycle !== undefined) foldLifecycle(lifecycle, draft, seq, !stored);
        pending.push(draft);
        results.push(checked ? (input as SessionEvent) : stored ? toEvent(draft, seq, time) : draft);
        seq++;
      }
    } catch (error) {
      this.#surface.rollback();
      if (lifecycleBefore !== undefined) lifecycle!.restore(lifecycleBefore);
      throw withSeq(error, seq, stored);
    }
    if (!commit) {
      this.#surface.rollback();
      if (lifecycleBefore !== undefined) lifecycle!.restore(lifecycleBefore);
      return results;
    }
    this.#surface.release();
    pending.forEach((draft, index) => this.#remember(firstSeq + index, draft));
    this.#length = seq;
    return results;
  }

  /** Keep what the rules may need of a committed surface node; drop what nodes that left the surface kept. */
  #remember(seq: number, draft: ValidatedDraft): void {
    if (draft.surfaceOp === undefined || !rememberedTypes.has(draft.type)) return;
    const data = draft.type === 'tool/result' ? withoutContent(draft.data) : null;
    this.#nodes.set(seq, { type: draft.type, data });
    this.#nodeBytes += nodeBytes(data);
    if (this.#nodes.size <= 2 * this.#surface.size + 64) return;
    this.#nodeBytes = 0;
    for (const [nodeSeq, node] of this.#nodes) {
      if (this.#surface.slotOf(nodeSeq) < 0) this.#nodes.delete(nodeSeq);
      else this.#nodeBytes += nodeBytes(node.data as JsonValue);
    }
  }
}

/** Rough heap size of a remembered node. */
function nodeBytes(data: JsonValue): number {
  return 96 + (data === null ? 0 : 2 * JSON.stringify(data).length);
}

/**
 * Fold one event into the lifecycle; with `enforce`, a rule it breaks throws `LIFECYCLE_VIOLATION` (the caller
 * restores the tracker). Violations are not kept: only the ones an event adds matter.
 */
function foldLifecycle(tracker: LifecycleTracker, draft: ValidatedDraft, seq: number, enforce: boolean): void {
  tracker.apply(toEvent(draft, seq, 0));
  const violation = tracker.violations[0];
  tracker.violations.length = 0;
  if (enforce && violation !== undefined) {
    throw new SessionLogError('LIFECYCLE_VIOLATION', `${violation.code}: ${violation.message}`, {
      seq,
      rule: violation.code,
    });
  }
}

/** Checks a stored event's `seq` (must be `seq`) and returns its `time`. */
function storedTime(input: unknown, seq: number): number {
  if (typeof input !== 'object' || input === null) invalid('an event must be an object');
  const { seq: givenSeq, time } = input as { seq?: unknown; time?: unknown };
  // Object.is: a seq of -0 is refused like every -0 (it is not JSON: it would read back as 0).
  if (!Object.is(givenSeq, seq)) {
    invalid(`seq must be ${seq} (its position in the log), got ${describeValue(givenSeq)}`, 'seq');
  }
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
