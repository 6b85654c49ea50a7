// What the tier tests share: a session of turns with bodies of many sizes, and a session's full export read page by
// page (as the hub's catch-up and HTTP pages read it) as one byte string to compare before and after archiving.
import type { EventStore, ValidatedDraft } from '../../server/store/event-store.ts';

/** `turns` turns of a few events each (turn/start, step/start, chunks of varied sizes, step/end, turn/end). */
export function turnDrafts(turns: number, firstTurn = 1, tag = 't'): ValidatedDraft[][] {
  const batches: ValidatedDraft[][] = [];
  for (let turn = firstTurn; turn < firstTurn + turns; turn++) {
    const chunks = Array.from({ length: 1 + (turn % 4) }, (_, index) => ({
      type: 'assistant/chunk',
      data: { turn, step: 1, chunk: `${tag} ${turn}.${index} ${'x'.repeat((turn * 37 + index * 101) % 700)}` },
    }));
    batches.push(
      [
        { type: 'turn/start', data: { turn } },
        { type: 'step/start', data: { turn, step: 1 } },
      ],
      chunks,
      [
        { type: 'step/end', data: { turn, step: 1 } },
        { type: 'turn/end', data: { turn, reason: { kind: 'completed' } } },
      ],
    );
  }
  return batches;
}

/** Commits the batches one by one at the session's head; the epoch. */
export async function commitAll(store: EventStore, sessionId: string, batches: ValidatedDraft[][]): Promise<string> {
  let epoch = '';
  for (const events of batches) {
    const { headSeq } = await store.head(sessionId);
    const result = await store.commit({ sessionId, expectedSeq: headSeq + 1, events });
    if (result.status !== 'committed') throw new Error(`commit ${result.status}`);
    epoch = result.epoch;
  }
  return epoch;
}

/**
 * A session's events from `fromSeq` read in pages of `limit` and `maxBytes` (as the hub reads them), as one
 * buffer of seq, time and body per event, and the epoch of every page.
 */
export async function exportBytes(
  store: EventStore,
  sessionId: string,
  options: { fromSeq?: number; limit?: number; maxBytes?: number } = {},
): Promise<{ bytes: Buffer; epochs: Set<string | undefined>; count: number }> {
  const parts: Buffer[] = [];
  const epochs = new Set<string | undefined>();
  let seq = options.fromSeq ?? 0;
  let count = 0;
  for (;;) {
    const page = await store.readStoredPage(sessionId, seq, options.limit ?? 50, options.maxBytes);
    epochs.add(page.epoch);
    if (page.firstSeq !== seq) throw new Error(`page at ${seq} starts at ${page.firstSeq}`);
    page.bodies.forEach((body, index) => {
      parts.push(Buffer.from(`${seq + index}:${page.times[index]}:${body.byteLength}:`), Buffer.from(body));
    });
    seq += page.bodies.length;
    count += page.bodies.length;
    if (page.bodies.length === 0) break;
  }
  return { bytes: Buffer.concat(parts), epochs, count };
}
