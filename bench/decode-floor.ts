/**
 * The floor of a cold catch-up (part of bench/archive-tier.ts's `catchUpOn`): the same session's events cut into
 * segments as the archiver cuts them (server/archive/segment-codec.ts), then decoded one after the other, as one
 * reader with nothing cached does at the least, with no I/O, no page plan and no hot read beside them.
 */
import { performance } from 'node:perf_hooks';
import { brotliDecompressSync } from 'node:zlib';
import type { EventStore } from '../server/store/event-store.ts';
import { decodeSegment, encodeSegment, splitRun, type EncodedSegment } from '../server/archive/segment-codec.ts';

export interface DecodeFloor {
  /** Events/s of `decodeSegment` (checksum, brotli on the thread pool, structure), segment after segment. */
  readonly decode: number;
  /** Events/s of the brotli decompression alone, synchronous on the main thread. */
  readonly decompressSync: number;
}

interface Segments {
  readonly events: number;
  readonly encoded: readonly { readonly segment: EncodedSegment; readonly firstSeq: number; readonly count: number }[];
}

/** The events `0 .. count - 1` of `sessionId` in `store`, encoded as the archive's segments. */
export async function segmentsOf(store: EventStore, sessionId: string, count: number): Promise<Segments> {
  const bodies: Uint8Array[] = [];
  const times: number[] = [];
  while (bodies.length < count) {
    const page = await store.readStoredPage(sessionId, bodies.length, 1000);
    if (page.bodies.length === 0) throw new Error(`decode-floor: empty page at ${bodies.length}`);
    bodies.push(...page.bodies);
    times.push(...page.times);
  }
  const encoded = [];
  for (const part of splitRun({ firstSeq: 0, bodies, times })) {
    const segment = await encodeSegment(part);
    encoded.push({ segment, firstSeq: part.firstSeq, count: part.bodies.length });
  }
  return { events: bodies.length, encoded };
}

/** Times decoding every segment of `segments`, one after the other (then their decompression alone, synchronous). */
export async function timeDecodeFloor(segments: Segments): Promise<DecodeFloor> {
  let start = performance.now();
  for (const { segment, firstSeq, count } of segments.encoded) {
    await decodeSegment(segment.file, { sha256: segment.sha256, firstSeq, count, bytes: segment.bytes }, 'floor');
  }
  const decode = (segments.events * 1000) / (performance.now() - start);
  start = performance.now();
  for (const { segment } of segments.encoded) brotliDecompressSync(segment.file.subarray(40));
  const decompressSync = (segments.events * 1000) / (performance.now() - start);
  return { decode, decompressSync };
}
