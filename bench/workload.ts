import type { AppendDraftFor } from '../shared/index.ts';

/** ~120 bytes of streamed model text: the typical size of an `assistant/chunk`. */
export const CHUNK_TEXT =
  'The quick brown fox jumps over the lazy dog while the agent streams its answer token by token to the UI.';

/** Where an event was sent from: writer index and intended send time (performance.now() of the bench process). */
export interface SendStamp {
  readonly i: number;
  readonly t: number;
}

/**
 * The event every scenario writes: an `assistant/chunk` (non-surface, so validation is the envelope and lossless
 * JSON only) whose chunk carries the send stamp, so a receiver can measure append→receive latency.
 */
export function benchDraft(index: number, sentAtMs: number): AppendDraftFor<'assistant/chunk'> {
  return { type: 'assistant/chunk', data: { turn: 1, step: 1, chunk: { text: CHUNK_TEXT, i: index, t: sentAtMs } } };
}

/** The stamp inside a received event's data, if it is a bench event. */
export function readStamp(data: unknown): SendStamp | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const chunk = (data as { chunk?: unknown }).chunk;
  if (typeof chunk !== 'object' || chunk === null) return undefined;
  const { i, t } = chunk as { i?: unknown; t?: unknown };
  return typeof i === 'number' && typeof t === 'number' ? { i, t } : undefined;
}

/** A batch of `size` drafts with consecutive indexes starting at `firstIndex`. */
export function benchBatch(firstIndex: number, size: number, sentAtMs: number): AppendDraftFor<'assistant/chunk'>[] {
  return Array.from({ length: size }, (_, offset) => benchDraft(firstIndex + offset, sentAtMs));
}
