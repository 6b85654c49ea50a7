import { ArchiveConflictError, type ArchivedSession, type ArchiveSegment } from './archive-backend.ts';

/** Events already archived, read back to compare with a retried run (bodies and times from `fromSeq` on). */
export type ArchivedReader = (
  fromSeq: number,
  count: number,
) => Promise<{ bodies: readonly Uint8Array[]; times: readonly number[] }>;

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.byteLength === b.byteLength && Buffer.compare(a, b) === 0;
}

/**
 * How much of `segment` is already archived (both backends decide the same way): the number of its leading events
 * that the archive holds, identical (bodies and times), so that only the rest is written; `segment.bodies.length`
 * when it is all there (a retried run: nothing to write). Throws `ArchiveConflictError` when the segment is of
 * another epoch, starts after `nextSeq` (a gap) or before `startSeq`, or overlaps archived events that differ.
 */
export async function alreadyArchived(
  archived: ArchivedSession | undefined,
  segment: ArchiveSegment,
  readArchived: ArchivedReader,
): Promise<number> {
  if (archived === undefined) return 0;
  const { sessionId, firstSeq } = segment;
  if (archived.epoch !== segment.epoch) {
    throw new ArchiveConflictError(
      `session ${JSON.stringify(sessionId)} is archived in epoch ${archived.epoch}, not ${segment.epoch}`,
    );
  }
  if (firstSeq > archived.nextSeq) {
    throw new ArchiveConflictError(
      `session ${JSON.stringify(sessionId)}: seq ${firstSeq} would leave a gap after the archived ${archived.nextSeq - 1}`,
    );
  }
  if (firstSeq < archived.startSeq) {
    throw new ArchiveConflictError(
      `session ${JSON.stringify(sessionId)}: seq ${firstSeq} is before the archive's first seq ${archived.startSeq}`,
    );
  }
  const overlap = Math.min(archived.nextSeq, firstSeq + segment.bodies.length) - firstSeq;
  if (overlap === 0) return 0;
  const stored = await readArchived(firstSeq, overlap);
  if (stored.bodies.length !== overlap) {
    throw new ArchiveConflictError(`session ${JSON.stringify(sessionId)}: the archived run changed during the append`);
  }
  for (let index = 0; index < overlap; index++) {
    if (stored.times[index] !== segment.times[index] || !sameBytes(stored.bodies[index]!, segment.bodies[index]!)) {
      throw new ArchiveConflictError(
        `session ${JSON.stringify(sessionId)}: seq ${firstSeq + index} is archived with other content`,
      );
    }
  }
  return overlap;
}
