import type { StoredPage } from '../store/event-store.ts';
import type { ArchiveBackend } from './archive-backend.ts';

const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => Buffer.compare(a, b) === 0;

/**
 * Reads a session's archive over the seqs of `hot` (a page of its hot log) and compares it with the page: seqs,
 * commit times and stored bodies, byte for byte, in the archived `epoch`. The first seq where they differ (or the
 * archive holds nothing), undefined when every event is the same. The archiver's check before it trims, and the
 * restore's before it deletes the archive.
 */
export async function firstDifference(
  archive: ArchiveBackend,
  sessionId: string,
  epoch: string,
  hot: StoredPage,
): Promise<number | undefined> {
  for (let index = 0; index < hot.bodies.length;) {
    const seq = hot.firstSeq + index;
    const cold = await archive.read(sessionId, seq, hot.bodies.length - index, Number.MAX_SAFE_INTEGER);
    // The archive may answer fewer events (it reads by segment): what it answered is compared, then read on.
    const same =
      cold.epoch === epoch &&
      cold.firstSeq === seq &&
      cold.bodies.length > 0 &&
      cold.bodies.length <= hot.bodies.length - index &&
      cold.bodies.every(
        (body, at) => cold.times[at] === hot.times[index + at] && sameBytes(body, hot.bodies[index + at]!),
      );
    if (!same) return seq;
    index += cold.bodies.length;
  }
  return undefined;
}
