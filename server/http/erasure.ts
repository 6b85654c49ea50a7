import { HubErrorCode } from '../../shared/protocol.ts';
import { HubError } from '../hub-error.ts';
import type { Logger } from '../logger.ts';
import type { EventStore } from '../store/event-store.ts';
import { NO_EPOCH } from '../store/event-store.ts';
import { validateSessionId } from '../store/session-id.ts';

/** Bounds of the erasure requests (docs/protocol.md#erasure). */
export const ERASURE_LIMITS = Object.freeze({
  /** Length of `reason` (UTF-16 code units). */
  reasonUnits: 1024,
  /** Largest request body. */
  bodyBytes: 16 * 1024,
  /** Sessions a real subject erasure erases per request (then `next`), and its default. */
  maxEraseLimit: 100,
  /** Sessions a dry run lists per request (then `next`), and its default. */
  maxDryRunLimit: 1000,
  /** Length of a `match` value (`createdBy`, a label's value) and of `prefix`/`after`. */
  textUnits: 1024,
});

/** What erasure needs of the node: the store it holds (deleteSession reaches every tier it has), its log. */
export interface ErasureDeps {
  readonly store: EventStore;
  readonly logger: Logger;
  /** A session was deleted through this node: drop what the node holds for it (the append cache). */
  readonly onSessionDeleted: (sessionId: string) => void;
}

/** Who asks, and why (the audit line's fields; never any content of the session). */
export interface ErasureRequester {
  readonly subject: string;
  readonly reason: string;
}

/** What erasing one session removed (read just before the delete; an append racing it may add a new epoch after). */
export interface ErasedSession {
  readonly sessionId: string;
  /** True when the store held anything of the session (events, epoch, keys, snapshot or metadata) and deleted it. */
  readonly erased: boolean;
  /** The epoch the session had; absent when it had none. */
  readonly epoch?: string;
  /** Events the store held (head seq + 1 − first seq). */
  readonly events: number;
  readonly headSeq: number;
  /** A snapshot record was stored (whatever its state) and is gone. */
  readonly snapshot: boolean;
  /** A metadata record was stored and is gone. */
  readonly metadata: boolean;
}

/** Checks an erasure's `reason`: a non-empty string within `ERASURE_LIMITS.reasonUnits`. */
export function parseReason(value: unknown): string {
  if (typeof value !== 'string' || value.trim().length === 0) {
    throw new HubError(HubErrorCode.BAD_REQUEST, '"reason" must be a non-empty string');
  }
  if (value.length > ERASURE_LIMITS.reasonUnits) {
    throw new HubError(HubErrorCode.BAD_REQUEST, `"reason" is longer than ${ERASURE_LIMITS.reasonUnits} characters`, {
      limit: ERASURE_LIMITS.reasonUnits,
    });
  }
  return value;
}

/** A JSON object body, or BAD_REQUEST naming what it must be. */
export function bodyObject(body: unknown, shape: string): Readonly<Record<string, unknown>> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new HubError(HubErrorCode.BAD_REQUEST, `the body must be an object ${shape}`);
  }
  return body as Readonly<Record<string, unknown>>;
}

/** Refuses fields of `body` not in `known` (a typo such as `dryrun` must not erase for real). */
export function onlyFields(body: Readonly<Record<string, unknown>>, known: readonly string[]): void {
  for (const key of Object.keys(body)) {
    if (!known.includes(key)) {
      throw new HubError(HubErrorCode.BAD_REQUEST, `unknown field ${JSON.stringify(key.slice(0, 64))}`);
    }
  }
}

/**
 * Erases one session: `EventStore.deleteSession` of the store the node holds (events, epoch, idempotency keys,
 * first seq, snapshot and metadata; with a cold tier configured, the store's delete removes the archived copy too),
 * then drops the node's cached state and writes one audit line to the hub's log: who, when, which session, why,
 * what was removed (counts, never content). Every watcher, on every node, is reset by the delete's notice.
 */
export async function eraseSession(
  deps: ErasureDeps,
  sessionId: string,
  requester: ErasureRequester,
  audit: Readonly<Record<string, unknown>> = {},
): Promise<ErasedSession> {
  validateSessionId(sessionId);
  const { store } = deps;
  const [head, metadata, snapshot] = await Promise.all([
    store.head(sessionId),
    store.metadata.get(sessionId),
    store.snapshots.get(sessionId),
  ]);
  const snapshotStored = snapshot.status !== 'none' || snapshot.reason !== 'missing';
  const deleted = await store.deleteSession(sessionId);
  deps.onSessionDeleted(sessionId);
  const firstSeq = head.firstSeq ?? 0;
  const report: ErasedSession = {
    sessionId,
    erased: deleted,
    ...(head.epoch === NO_EPOCH ? {} : { epoch: head.epoch }),
    events: Math.max(0, head.headSeq + 1 - firstSeq),
    headSeq: head.headSeq,
    snapshot: deleted && snapshotStored,
    metadata: deleted && metadata !== undefined,
  };
  deps.logger.info(
    {
      audit: 'erasure',
      by: requester.subject,
      at: new Date().toISOString(),
      sessionId,
      reason: requester.reason,
      erased: report.erased,
      events: report.events,
      snapshot: report.snapshot,
      metadata: report.metadata,
      ...audit,
    },
    'session erased',
  );
  return report;
}
