import type { StoredPage } from '../../store/event-store.ts';
import { segmentAt, type SessionIndex } from './index-codec.ts';
import type { SessionFiles } from './session-files.ts';

/**
 * One page of a session's archive as the seam's `read` returns it: up to `limit` events from `fromSeq`, at most
 * `maxBytes` of bodies but at least one event, each segment verified as it is read.
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
  for (let at = segmentAt(index.segments, fromSeq); at < index.segments.length; at++) {
    const entry = index.segments[at]!;
    const events = await files.loadSegment(entry);
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
