import { randomUUID } from 'node:crypto';
import { forkPoint, isKnownEvent, normalizeDraft } from '../../shared/index.ts';
import type { ForkPoint, SessionEvent } from '../../shared/index.ts';
import { HubErrorCode } from '../../shared/protocol.ts';
import type { ForkedMessage } from '../../shared/protocol.ts';
import type { HubAction } from '../auth/auth-seam.ts';
import { HubError } from '../hub-error.ts';
import type { StoreReadLimits } from '../limits/store-reads.ts';
import { StoreReadSizer, largestBody } from '../limits/store-reads.ts';
import { decodeStoredPage } from '../store/codec/stored-events.ts';
import type { EventStore, SessionHead } from '../store/event-store.ts';
import { MAX_FORK_DEPTH, type Lineage } from '../store/fork-store.ts';
import { validateSessionId } from '../store/session-id.ts';
import { StoreTrimmedError } from '../store/trimmed-error.ts';

/** A fork as asked over the wire (`fork` message, `POST /v1/sessions/:id/forks`). */
export interface ForkInput {
  readonly sessionId: string;
  readonly atSeq: number;
  readonly newId?: string | undefined;
  readonly repair?: boolean | undefined;
}

/** What the hub answers to a fork: the `forked` message without its envelope. */
export type ForkOutcome = Omit<ForkedMessage, 'type' | 'id'>;

export interface ForkDeps {
  /** The node's store, read through its lineage layer (a fork of a fork reads its prefix through its parents). */
  readonly store: EventStore;
  readonly reads: StoreReadLimits;
  /** FORBIDDEN (a `HubError`) unless the requester may do `action` on `sessionId`. */
  readonly authorize: (action: HubAction, sessionId: string) => Promise<void>;
}

/**
 * A node's fork maker: `forkSession` with the node's store and read limits, the requester's grants checked by
 * `authorize`; `createdBy` (the requester's subject, `''` on an open hub) goes to the fork's metadata, as an append's
 * author does to a new session's, so a subject erasure by `createdBy` finds the forks the subject made.
 */
export type ForkService = (
  input: ForkInput,
  authorize: ForkDeps['authorize'],
  createdBy: string,
) => Promise<ForkOutcome>;

/**
 * A fork's default id: the source's tenant prefix (up to its last `/`), `fork-` and a random UUID, so that a token
 * granting `acme/*` may name it.
 */
export function defaultForkId(sessionId: string): string {
  const slash = sessionId.lastIndexOf('/');
  return `${slash < 0 ? '' : sessionId.slice(0, slash + 1)}fork-${randomUUID()}`;
}

/**
 * Fork a session (docs/protocol.md#forks): check the grants (read on the source, append on the new id), that
 * `atSeq` is in the source's log, and the fork rule at `atSeq` (shared/fork-point.ts: a turn boundary, or the repair
 * of the open turn when `repair` is asked), then make the fork in the store. Reads the source back from `atSeq` to
 * its last turn marker only, so the cost does not grow with the source's length.
 */
export async function forkSession(input: ForkInput, deps: ForkDeps): Promise<ForkOutcome> {
  const { sessionId, atSeq } = input;
  const childId = input.newId ?? defaultForkId(sessionId);
  validateSessionId(sessionId);
  validateSessionId(childId);
  await deps.authorize('read', sessionId);
  await deps.authorize('append', childId);
  const head = await deps.store.head(sessionId);
  if (head.epoch === '') throw new HubError(HubErrorCode.NOT_FOUND, `session ${sessionId} does not exist`);
  if (atSeq > head.headSeq) {
    throw new HubError(HubErrorCode.SEQ_OUT_OF_RANGE, `atSeq ${atSeq} is beyond the head ${head.headSeq}`, {
      headSeq: head.headSeq,
    });
  }
  if (childId === sessionId) {
    throw new HubError(HubErrorCode.FORK_TARGET_EXISTS, `session ${childId} exists already: it is the one forked`, {
      sessionId: childId,
      headSeq: head.headSeq,
    });
  }
  const point = await readForkPoint(deps, sessionId, head, atSeq);
  if (point.kind === 'inside-turn' && input.repair !== true) {
    throw new HubError(
      HubErrorCode.FORK_INSIDE_TURN,
      `seq ${atSeq} is inside turn ${point.turn}: fork at a turn boundary, or ask for repair`,
      { atSeq, turn: point.turn },
    );
  }
  const repair = point.kind === 'inside-turn' ? point.repair.map((draft) => normalizeDraft(draft)) : [];
  const request = { parentId: sessionId, parentEpoch: head.epoch, atSeq, childId, events: repair };
  const result = await deps.store.forks.create(request);
  const outcome = (lineage: Lineage, epoch: string, headSeq: number, duplicate: boolean): ForkOutcome => ({
    sessionId: childId,
    epoch,
    headSeq,
    parent: lineage.parent,
    forkSeq: lineage.forkSeq,
    depth: lineage.depth,
    repaired: repair.length,
    duplicate,
  });
  switch (result.status) {
    case 'forked':
      return outcome(result.lineage, result.epoch, result.headSeq, false);
    case 'target-exists': {
      const { lineage } = result;
      if (lineage?.parent === sessionId && lineage.forkSeq === atSeq && lineage.parentEpoch === head.epoch) {
        return outcome(lineage, result.epoch, result.headSeq, true);
      }
      throw new HubError(HubErrorCode.FORK_TARGET_EXISTS, `session ${childId} exists already`, {
        sessionId: childId,
        headSeq: result.headSeq,
      });
    }
    case 'parent-changed':
      throw new HubError(HubErrorCode.FORK_PARENT_CHANGED, `session ${sessionId} changed while it was forked`, {
        epoch: result.epoch,
        headSeq: result.headSeq,
      });
    case 'too-deep':
      throw new HubError(HubErrorCode.FORK_TOO_DEEP, `a fork of ${sessionId} would nest ${result.depth} levels deep`, {
        depth: result.depth,
        maxDepth: MAX_FORK_DEPTH,
      });
    default:
      throw new HubError(HubErrorCode.INTERNAL, 'the store answered a fork with an unknown status');
  }
}

/** Events the rule reads (shared/fork-point.ts): the markers and what the repair of an open turn answers. */
function mattersToRule(event: SessionEvent): boolean {
  if (!isKnownEvent(event)) return false;
  switch (event.type) {
    case 'turn/start':
    case 'turn/end':
    case 'step/start':
    case 'step/end':
    case 'tool/call':
    case 'tool/result':
      return true;
    default:
      return false;
  }
}

/**
 * The fork rule at `atSeq`, from the events before it: windows read backwards (each twice the last), keeping only
 * the events the rule reads (so chunks and messages cost no memory), until a turn marker decides or the log's first
 * seq is reached. FORK_PARENT_CHANGED when the source changes epoch meanwhile. A trimmed log is read from its first
 * seq held, never below (a read there is GONE even when the rule is decided above it); GONE when `atSeq` is below it,
 * or when the rule needs the trimmed events (the open turn started there).
 */
async function readForkPoint(deps: ForkDeps, sessionId: string, head: SessionHead, atSeq: number): Promise<ForkPoint> {
  const { epoch } = head;
  const firstSeq = head.firstSeq ?? 0;
  if (atSeq < firstSeq) throw new StoreTrimmedError(sessionId, atSeq, firstSeq);
  const sizer = new StoreReadSizer(deps.reads);
  let kept: SessionEvent[] = [];
  let end = atSeq;
  for (let window = 64; ; window = Math.min(window * 2, 65_536)) {
    const from = Math.max(firstSeq, end - window + 1);
    const found: SessionEvent[] = [];
    for (let seq = from; seq <= end;) {
      const page = await deps.store.readStoredPage(sessionId, seq, Math.min(sizer.count, end - seq + 1));
      if (page.epoch !== epoch) {
        throw new HubError(HubErrorCode.FORK_PARENT_CHANGED, `session ${sessionId} changed while it was forked`);
      }
      if (page.bodies.length === 0) throw new HubError(HubErrorCode.FORK_PARENT_CHANGED, `${sessionId} lost events`);
      sizer.observe(largestBody(page.bodies));
      for (const event of decodeStoredPage(sessionId, page).events) if (mattersToRule(event)) found.push(event);
      seq += page.bodies.length;
    }
    kept = [...found, ...kept];
    const point = forkPoint(kept);
    if (point.kind !== 'need-earlier') return point;
    // Seq 0 reached without a turn marker: no turn was ever opened. A trimmed first seq: the rule needs what is gone.
    if (from === 0) return { kind: 'boundary' };
    if (from === firstSeq) throw new StoreTrimmedError(sessionId, firstSeq - 1, firstSeq);
    end = from - 1;
  }
}
