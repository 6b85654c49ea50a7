import type { KnownEventDraft, SessionEvent, SurfaceOp } from '../shared/events.ts';
import type { JsonValue } from '../shared/json.ts';
import { encodedDraft } from './append-frame.ts';
import type { WriterState } from './writer-state.ts';

/** What the writer appends: a typed draft of a known event, or an extension event. */
export type WriterDraft = KnownEventDraft | { readonly type: string; readonly data: JsonValue };

/** A call of the writer waiting for its append. */
export interface Queued {
  /** As it goes on the wire: copied and checked at the call (`prepareDraft`). */
  readonly draft: WriterDraft;
  /** Its encoded size: what it adds to the append frame. */
  readonly bytes: number;
  /** The seq it will get. */
  readonly seq: number;
  readonly resolve: (event: SessionEvent) => void;
  readonly reject: (error: unknown) => void;
}

/** What bounds one append of the writer (see `takeBatch`). */
export interface BatchLimits {
  readonly maxEvents: number;
  /** Bytes of an append frame of this writer besides its events. */
  readonly frameOverhead: number;
  readonly maxFrameBytes: number;
}

/**
 * Take the next append's drafts off `queue`: up to `maxEvents`, and no more than fit in `maxFrameBytes` (else the
 * whole batch would fail with FRAME_TOO_LARGE). Always at least one: a draft too big on its own fails with
 * FRAME_TOO_LARGE.
 */
export function takeBatch(queue: Queued[], limits: BatchLimits): Queued[] {
  let bytes = limits.frameOverhead;
  let count = 0;
  for (const item of queue) {
    bytes += item.bytes;
    if (count === limits.maxEvents || (count > 0 && bytes > limits.maxFrameBytes)) break;
    count++;
  }
  return queue.splice(0, count);
}

/**
 * The hub committed `trailer` (consecutive seqs, e.g. the `audit/redaction` of a redaction at append, `serve
 * --secrets redact`) right behind the writer's last append: every seq the writer assigned from `trailer[0]` on
 * moves up by its length — the queued calls' own seqs and their references (`sourceEventSeqs`, a replace's
 * `surfaceOp` range), and the writer's state (next seq, the chunks a message will cite, the surface). References
 * below it (committed events) stay. Mutates `queue` and `state`.
 */
export function skipTrailer(queue: Queued[], state: WriterState, trailer: readonly number[]): void {
  const from = trailer[0];
  if (from === undefined) return;
  const shift = (seq: number): number => (seq >= from ? seq + trailer.length : seq);
  queue.forEach((item, index) => {
    const draft = shiftedDraft(item.draft, shift);
    queue[index] = { ...item, draft, bytes: encodedDraft(draft).byteLength, seq: shift(item.seq) };
  });
  state.nextSeq = shift(state.nextSeq);
  state.chunkSeqs = state.chunkSeqs.map(shift);
  state.surface = state.surface.map((node) => ({ ...node, seq: shift(node.seq) }));
}

/** The draft with its seq references moved by `shift` (the same object when it has none). */
function shiftedDraft(draft: WriterDraft, shift: (seq: number) => number): WriterDraft {
  const { sourceEventSeqs, surfaceOp } = draft as { sourceEventSeqs?: readonly number[]; surfaceOp?: SurfaceOp };
  const replacing = typeof surfaceOp === 'object';
  if (sourceEventSeqs === undefined && !replacing) return draft;
  return Object.freeze({
    ...draft,
    ...(sourceEventSeqs === undefined ? {} : { sourceEventSeqs: Object.freeze(sourceEventSeqs.map(shift)) }),
    ...(replacing
      ? {
          surfaceOp: Object.freeze({
            ...surfaceOp,
            startSeq: shift(surfaceOp.startSeq),
            endSeq: shift(surfaceOp.endSeq),
          }),
        }
      : {}),
  }) as WriterDraft;
}
