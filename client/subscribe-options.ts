import type { SessionEvent } from '../shared/events.ts';
import { SessionLogError } from '../shared/errors.ts';
import { MessageProjector, Session, type ProjectorState } from '../shared/index.ts';
import { HubClientError } from './errors.ts';

/**
 * What a UI keeps of a subscription to resume it later (e.g. across a page reload): plain data, serializable with
 * `JSON.stringify` or `structuredClone` (IndexedDB). `epoch` is null only while the hub has not answered yet, or
 * while the session has no epoch (nobody wrote it yet): then `events` is empty.
 */
export interface SubscriptionSnapshot {
  readonly sessionId: string;
  readonly epoch: string | null;
  /** The local copy of the log: ascending, contiguous seqs (from seq 0 when the subscription started there). */
  readonly events: readonly SessionEvent[];
  /**
   * When the subscription started on a hub snapshot (`from: 'snapshot'`): the snapshot's projector state, the
   * projection of the seqs before `events` (so a resumed copy derives exact messages without the older events).
   */
  readonly base?: ProjectorState;
}

/**
 * Where a subscription starts: from `fromSeq` (default 0), optionally under the `epoch` the caller's copy belongs
 * to (a different epoch at the hub means `reset` and a rebuild from seq 0); or from a `resume` snapshot, which
 * also seeds the local copy and its derived messages.
 */
export type SubscribeOptions = (
  | { readonly fromSeq?: number; readonly epoch?: string; readonly resume?: never }
  | { readonly resume: SubscriptionSnapshot; readonly fromSeq?: never; readonly epoch?: never }
) & {
  /** Follow who watches the session (`subscription.presence`, `presence` events). Default false. */
  readonly presence?: boolean;
  /** How this subscription is named to other watchers (at most 128 characters). */
  readonly label?: string;
  /** Follow the session's metadata: title, labels, creation (`subscription.metadata`, `metadata` events). */
  readonly metadata?: boolean;
  /**
   * `'snapshot'`: start from the hub's projection snapshot (messages exact at once, `events` holds only the tail
   * after it, `snapshotSeq` says where). With `resume`, the kept copy is used when it is of the session's epoch and
   * at or past the hub's snapshot, else the hub's snapshot replaces it (never a mix of two epochs).
   */
  readonly from?: 'snapshot';
};

/** The checked start of a subscription. */
export interface SubscriptionStart {
  readonly fromSeq: number;
  readonly epoch: string | undefined;
  /** Events the local copy starts with (checked: contiguous from `fromSeq`, a valid log when `fromSeq` is 0). */
  readonly events: readonly SessionEvent[];
  /** The projection of the seqs before `fromSeq` (a resumed copy that started on a hub snapshot). */
  readonly base?: MessageProjector;
  /** Ask the hub for its snapshot (`from: 'snapshot'`). */
  readonly fromSnapshot?: boolean;
}

const KNOWN_OPTIONS: ReadonlySet<string> = new Set([
  'fromSeq',
  'epoch',
  'resume',
  'presence',
  'label',
  'metadata',
  'from',
]);
/** Longest epoch accepted (the hub's are UUIDs). */
const MAX_EPOCH_LENGTH = 256;

/**
 * Check where `subscribe` starts, as JS callers may pass anything: every problem is a BAD_REQUEST. (`presence` and
 * `label` are checked by `checkPresenceRequest`.)
 */
export function subscriptionStart(sessionId: string, options: unknown): SubscriptionStart {
  const refuse = (message: string, cause?: unknown): never => {
    throw new HubClientError('BAD_REQUEST', `subscribe(${JSON.stringify(sessionId)}): ${message}`, {
      sessionId,
      ...(cause === undefined ? {} : { cause }),
    });
  };
  if (options === undefined) return { fromSeq: 0, epoch: undefined, events: [] };
  if (typeof options !== 'object' || options === null || Array.isArray(options)) refuse('options must be an object');
  const record = options as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!KNOWN_OPTIONS.has(key))
      refuse(`unknown option ${JSON.stringify(key)} (fromSeq, epoch, resume, presence, label, metadata, from)`);
  }
  const { fromSeq, epoch, resume, from } = record;
  if (from !== undefined) {
    if (from !== 'snapshot') refuse(`from must be 'snapshot'`);
    if (fromSeq !== undefined || epoch !== undefined) refuse('from: snapshot starts where the snapshot ends');
    const start =
      resume === undefined ? { fromSeq: 0, epoch: undefined, events: [] } : fromSnapshot(sessionId, resume, refuse);
    return { ...start, fromSnapshot: true };
  }
  if (resume !== undefined) {
    if (fromSeq !== undefined || epoch !== undefined) refuse('resume carries its own fromSeq and epoch');
    return fromSnapshot(sessionId, resume, refuse);
  }
  if (fromSeq !== undefined && (!Number.isSafeInteger(fromSeq) || (fromSeq as number) < 0)) {
    refuse('fromSeq must be a non-negative integer');
  }
  if (epoch !== undefined) checkEpoch(epoch, refuse);
  return { fromSeq: (fromSeq as number | undefined) ?? 0, epoch: epoch as string | undefined, events: [] };
}

function checkEpoch(epoch: unknown, refuse: (message: string) => never): void {
  if (typeof epoch !== 'string' || epoch.length === 0 || epoch.length > MAX_EPOCH_LENGTH) {
    refuse(`epoch must be a non-empty string of at most ${MAX_EPOCH_LENGTH} characters`);
  }
}

function fromSnapshot(
  sessionId: string,
  snapshot: unknown,
  refuse: (message: string, cause?: unknown) => never,
): SubscriptionStart {
  if (typeof snapshot !== 'object' || snapshot === null) refuse('resume must be a snapshot');
  const { sessionId: id, epoch, events, base } = snapshot as Record<string, unknown>;
  if (id !== sessionId) refuse(`resume holds a snapshot of ${JSON.stringify(id)}`);
  if (!Array.isArray(events)) refuse('resume.events must be an array');
  const list = events as unknown[];
  if (epoch === null) {
    if (list.length > 0) refuse('resume.epoch is needed with events: without it a changed session cannot be told');
    return { fromSeq: 0, epoch: undefined, events: [] };
  }
  checkEpoch(epoch, refuse);
  const first = list[0] as { seq?: unknown } | undefined;
  const fromSeq = first === undefined ? 0 : first.seq;
  if (!Number.isSafeInteger(fromSeq) || (fromSeq as number) < 0) refuse('resume.events[0].seq must be a seq');
  try {
    if (base !== undefined) {
      const projector = MessageProjector.fromState(base);
      if (projector.length !== fromSeq && list.length > 0) refuse('resume.base does not end before resume.events');
      const start = list.length === 0 ? projector.length : (fromSeq as number);
      return { fromSeq: start, epoch: epoch as string, events: checkContiguous(list, start), base: projector };
    }
    // From seq 0 the snapshot is a whole log: re-checked as the core replays one (envelope, data shapes, surface
    // rules), so the messages derived from it are what the hub's log derives. From a later seq only its order is.
    const checked =
      fromSeq === 0 ? Session.fromLog(list as SessionEvent[]).events : checkContiguous(list, fromSeq as number);
    return { fromSeq: fromSeq as number, epoch: epoch as string, events: checked };
  } catch (error) {
    if (error instanceof SessionLogError || error instanceof HubClientError) {
      return refuse(`resume.events is not a valid log: ${error.message}`, error);
    }
    throw error;
  }
}

function checkContiguous(events: readonly unknown[], fromSeq: number): readonly SessionEvent[] {
  events.forEach((event, index) => {
    if (typeof event !== 'object' || event === null || (event as { seq?: unknown }).seq !== fromSeq + index) {
      throw new HubClientError('BAD_REQUEST', `events[${index}] is not seq ${fromSeq + index}`);
    }
  });
  return events as readonly SessionEvent[];
}
