import type { StoredPage } from '../../store/event-store.ts';
import { segmentAt, type SessionIndex } from './index-codec.ts';
import type { SessionFiles } from './session-files.ts';

/**
 * One page of a session's archive as the seam's `read` returns it: up to `limit` events from `fromSeq`, at most
 * `maxBytes` of bodies but at least one event, each segment verified as it is read; the segment after the last
 * one the page reads is read ahead.
 */
export async function readFileIndexPage(
  files: SessionFiles,
  index: SessionIndex | undefined,
  fromSeq: number,
  limit: number,
  maxBytes: number,
): Promise<StoredPage> {
  if (index === undefined) return { epoch: undefined, firstSeq: fromSeq, bodies: [], times: [] };
  const bodies: Uint8Array[] = [];
  const times: number[] = [];
  if (fromSeq < index.startSeq || fromSeq >= index.nextSeq) {
    return { epoch: index.epoch, firstSeq: fromSeq, bodies, times };
  }
  let seq = fromSeq;
  let bytes = 0;
  // A page that ends where a segment does stops there, without loading the next segment.
  for (let at = segmentAt(index.segments, fromSeq); at < index.segments.length && bodies.length < limit; at++) {
    const entry = index.segments[at]!;
    const events = await files.loadSegment(entry);
    // The reader is in this segment: the next one is loaded and decoded while it pages through this one.
    const next = index.segments[at + 1];
    if (next !== undefined) files.readAhead(next);
    for (let i = seq - entry.firstSeq; i < entry.count; i++, seq++) {
      const body = events.bodies[i]!;
      if (bodies.length === limit || (bodies.length > 0 && bytes + body.byteLength > maxBytes)) {
        return { epoch: index.epoch, firstSeq: fromSeq, bodies, times };
      }
      bodies.push(body);
      times.push(events.times[i]!);
      bytes += body.byteLength;
    }
  }
  return { epoch: index.epoch, firstSeq: fromSeq, bodies, times };
}
