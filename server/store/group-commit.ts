import type { CommitRequest, CommitResult, GroupCommitRequest, GroupCommitResult } from './event-store.ts';

/** The one-batch group of a single commit. */
export function groupOfOne(request: CommitRequest): GroupCommitRequest {
  const { sessionId, expectedSeq, expectedEpoch, events, idempotencyKey } = request;
  return {
    sessionId,
    expectedSeq,
    ...(expectedEpoch === undefined ? {} : { expectedEpoch }),
    batches: [idempotencyKey === undefined ? { events } : { events, idempotencyKey }],
  };
}

/** A single commit's answer from its group-of-one answer (a known key is a duplicate or a mismatch). */
export function singleResult(result: GroupCommitResult): CommitResult {
  if (result.status !== 'keys-known') return result;
  const known = result.keys[0];
  if (known === undefined) throw new Error('a group of one reported a known key for no batch');
  const { epoch } = result;
  const { firstSeq, lastSeq, time } = known;
  if (!known.sameBatch) return { status: 'idempotency-mismatch', epoch, firstSeq, lastSeq };
  return { status: 'duplicate', epoch, firstSeq, lastSeq, time };
}
