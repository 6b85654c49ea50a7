import { encodeEventBody } from '../../server/store/codec/event-codec.ts';
import type { ArchiveBackend, ArchiveSegment } from '../../server/archive/archive-backend.ts';

/** A stored body as the hub keeps it: an assistant chunk of `text` (msgpack, server/store/codec/event-codec.ts). */
export function chunkBody(text: string): Uint8Array {
  return encodeEventBody({ type: 'assistant/chunk', data: { turn: 1, step: 1, chunk: text } });
}

/** A run of `count` events from `firstSeq`, each body naming its seq (and `tag`), times from `time0` on. */
export function run(
  sessionId: string,
  epoch: string,
  firstSeq: number,
  count: number,
  options: { tag?: string; time0?: number; pad?: number } = {},
): ArchiveSegment {
  const bodies: Uint8Array[] = [];
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const seq = firstSeq + i;
    bodies.push(chunkBody(`${options.tag ?? 'event'} ${seq} ${'x'.repeat(options.pad ?? (seq * 7) % 50)}`));
    times.push((options.time0 ?? 1_700_000_000_000) + seq);
  }
  return { sessionId, epoch, firstSeq, bodies, times };
}

/** Every archived event of a session, read in pages of `limit`. */
export async function readAll(
  backend: ArchiveBackend,
  sessionId: string,
  limit = 1000,
): Promise<{ bodies: Uint8Array[]; times: number[]; epoch: string | undefined }> {
  const described = await backend.describe(sessionId);
  if (described === undefined) return { bodies: [], times: [], epoch: undefined };
  const bodies: Uint8Array[] = [];
  const times: number[] = [];
  let seq = described.startSeq;
  while (seq < described.nextSeq) {
    const page = await backend.read(sessionId, seq, limit, 64 * 1024 * 1024);
    if (page.bodies.length === 0) throw new Error(`empty page at ${seq}`);
    bodies.push(...page.bodies);
    times.push(...page.times);
    seq += page.bodies.length;
  }
  return { bodies, times, epoch: described.epoch };
}

/** The bytes as plain arrays, for `toEqual` with a readable diff. */
export function hexes(bodies: readonly Uint8Array[]): string[] {
  return bodies.map((body) => Buffer.from(body).toString('hex'));
}
