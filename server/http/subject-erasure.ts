import { HubErrorCode } from '../../shared/protocol.ts';
import { labelKeyProblem, type SessionMetadata } from '../../shared/session-metadata.ts';
import { HubError, toHubError } from '../hub-error.ts';
import {
  bodyObject,
  ERASURE_LIMITS,
  eraseSession,
  onlyFields,
  parseReason,
  type ErasedSession,
  type ErasureDeps,
} from './erasure.ts';

/** Which sessions a subject erasure concerns: every given criterion must hold (at least one is given). */
export interface SubjectMatch {
  /** `metadata.createdBy` equals it (the subject of the token that made the session). */
  readonly createdBy?: string;
  /** The label `key` has exactly `value`. */
  readonly label?: { readonly key: string; readonly value: string };
}

/** `POST /v1/erasures`, parsed. */
export interface SubjectErasureRequest {
  readonly match: SubjectMatch;
  /** Only sessions whose id starts with it (ends with `/`, as grant patterns do); absent: every session. */
  readonly prefix?: string;
  /** True: list what would go, change nothing. False: erase. Never defaulted. */
  readonly dryRun: boolean;
  /** Required for a real run (the audit line's reason). */
  readonly reason?: string;
  /** Sessions per request; a real run erases at most `ERASURE_LIMITS.maxEraseLimit`. */
  readonly limit: number;
  /** Only sessions whose id sorts after it (the previous reply's `next`). */
  readonly after?: string;
}

export interface SubjectErasureFailure {
  readonly sessionId: string;
  readonly code: string;
  readonly message: string;
}

export interface SubjectErasureReply {
  readonly dryRun: boolean;
  /** The matching sessions of this page, by id: listed (dry run) or handled (real run). */
  readonly sessions: readonly string[];
  /** Real run: what each erased session held. */
  readonly erased?: readonly ErasedSession[];
  /** Real run: the sessions whose erasure failed (retry the run: they still match). */
  readonly failed?: readonly SubjectErasureFailure[];
  /** Sessions whose metadata this request read. */
  readonly scanned: number;
  /** More sessions may match: send the same request with `after: next`. Absent: the walk is done. */
  readonly next?: string;
}

const SHAPE = '{ match: { createdBy?, label? }, dryRun, reason, prefix?, limit?, after? }';
/** Summaries read per store call. */
const SUMMARY_BATCH = 256;

const bad = (message: string): HubError => new HubError(HubErrorCode.BAD_REQUEST, message);

function text(value: unknown, name: string): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > ERASURE_LIMITS.textUnits) {
    throw bad(`"${name}" must be a string of 1 to ${ERASURE_LIMITS.textUnits} characters`);
  }
  return value;
}

function parseMatch(value: unknown): SubjectMatch {
  const match = bodyObject(value, '"match": { createdBy?, label? }');
  onlyFields(match, ['createdBy', 'label']);
  const createdBy = match['createdBy'] === undefined ? undefined : text(match['createdBy'], 'match.createdBy');
  let label: SubjectMatch['label'];
  if (match['label'] !== undefined) {
    const pair = text(match['label'], 'match.label');
    const split = pair.indexOf('=');
    const key = pair.slice(0, split);
    if (split < 1 || labelKeyProblem(key) !== undefined) throw bad('"match.label" must be key=value (a label key)');
    label = { key, value: pair.slice(split + 1) };
  }
  if (createdBy === undefined && label === undefined) {
    throw bad('"match" must name createdBy or label: an erasure never matches every session');
  }
  return { ...(createdBy === undefined ? {} : { createdBy }), ...(label === undefined ? {} : { label }) };
}

/** Parses and bounds a `POST /v1/erasures` body (BAD_REQUEST on anything off, before anything is read). */
export function parseSubjectErasure(body: unknown): SubjectErasureRequest {
  const fields = bodyObject(body, SHAPE);
  onlyFields(fields, ['match', 'dryRun', 'reason', 'prefix', 'limit', 'after']);
  const { dryRun } = fields;
  if (typeof dryRun !== 'boolean') throw bad('"dryRun" must be true or false (it has no default)');
  const reason = dryRun && fields['reason'] === undefined ? undefined : parseReason(fields['reason']);
  const prefix = fields['prefix'] === undefined ? undefined : text(fields['prefix'], 'prefix');
  if (prefix !== undefined && (!prefix.endsWith('/') || prefix.length < 2)) {
    throw bad('"prefix" must end with "/" (e.g. "acme/")');
  }
  const most = dryRun ? ERASURE_LIMITS.maxDryRunLimit : ERASURE_LIMITS.maxEraseLimit;
  const limit = fields['limit'] ?? most;
  if (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit < 1 || limit > most) {
    throw bad(`"limit" must be an integer from 1 to ${most}${dryRun ? '' : ' for a real run'}`);
  }
  const after = fields['after'] === undefined ? undefined : text(fields['after'], 'after');
  return {
    match: parseMatch(fields['match']),
    dryRun,
    limit,
    ...(reason === undefined ? {} : { reason }),
    ...(prefix === undefined ? {} : { prefix }),
    ...(after === undefined ? {} : { after }),
  };
}

function matches(metadata: SessionMetadata, match: SubjectMatch): boolean {
  if (match.createdBy !== undefined && metadata.createdBy !== match.createdBy) return false;
  const { label } = match;
  return (
    label === undefined || (Object.hasOwn(metadata.labels, label.key) && metadata.labels[label.key] === label.value)
  );
}

/**
 * The matching sessions after `after`, by id, up to `limit`: the store's ids under the prefix, their metadata read a
 * batch at a time (O(sessions) ids, as the listing; only as many summaries as it takes to fill the page).
 */
async function matchingPage(
  deps: ErasureDeps,
  request: SubjectErasureRequest,
): Promise<{ sessions: string[]; scanned: number; more: boolean }> {
  const prefix = request.prefix ?? '';
  // Deduplicated: a Redis SCAN may return a key twice (the keyspace rehashes while sessions are deleted).
  const ids = [...new Set(await deps.store.listSessions(prefix))]
    .filter((id) => id.length > prefix.length && (request.after === undefined || id > request.after))
    .sort();
  const sessions: string[] = [];
  let scanned = 0;
  for (let start = 0; start < ids.length; start += SUMMARY_BATCH) {
    const batch = ids.slice(start, start + SUMMARY_BATCH);
    const summaries = await deps.store.metadata.summaries(batch);
    for (const [index, summary] of summaries.entries()) {
      scanned += 1;
      if (summary === undefined || !matches(summary.metadata, request.match)) continue;
      if (sessions.length === request.limit) return { sessions, scanned, more: true };
      sessions.push(batch[index]!);
    }
  }
  return { sessions, scanned, more: false };
}

/**
 * A page of a subject erasure: the dry run lists the matching sessions; the real run erases them one by one
 * (`eraseSession`, each with its audit line) and reports each failure without stopping. Resumable: the reply's `next`
 * continues after the last session of the page; a run that stopped part way is simply sent again (erased sessions no
 * longer match, failed ones are tried again).
 */
export async function runSubjectErasure(
  deps: ErasureDeps,
  request: SubjectErasureRequest,
  subject: string,
): Promise<SubjectErasureReply> {
  const { sessions, scanned, more } = await matchingPage(deps, request);
  const next = more ? { next: sessions[sessions.length - 1]! } : {};
  if (request.dryRun) return { dryRun: true, sessions, scanned, ...next };
  const erased: ErasedSession[] = [];
  const failed: SubjectErasureFailure[] = [];
  const reason = request.reason ?? '';
  const audit = { match: request.match };
  const fail = (sessionId: string, hubError: HubError, error: unknown): void => {
    failed.push({ sessionId, code: hubError.code, message: hubError.message });
    const log = { audit: 'erasure', by: subject, sessionId, code: hubError.code, err: hubError.cause ?? error };
    deps.logger.warn(log, 'session erasure failed');
  };
  // A session whose forks match too (e.g. the subject's retry of its own session) is refused HAS_FORKS while they
  // are there: it is tried again after the others of the page, pass after pass while a pass erases something.
  let pending: readonly string[] = sessions;
  while (pending.length > 0) {
    const waiting: { sessionId: string; hubError: HubError; error: unknown }[] = [];
    let progressed = false;
    for (const sessionId of pending) {
      try {
        erased.push(await eraseSession(deps, sessionId, { subject, reason }, audit));
        progressed = true;
      } catch (error) {
        const hubError = toHubError(error);
        if (hubError.code === HubErrorCode.HAS_FORKS) waiting.push({ sessionId, hubError, error });
        else fail(sessionId, hubError, error);
      }
    }
    if (!progressed) {
      for (const { sessionId, hubError, error } of waiting) fail(sessionId, hubError, error);
      break;
    }
    pending = waiting.map((entry) => entry.sessionId);
  }
  return { dryRun: false, sessions, erased, failed, scanned, ...next };
}
