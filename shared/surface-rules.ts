import { isNonNegativeSafeInteger, surfaceViolation as violation } from './check-helpers.ts';
import type { ReplaceOp, SurfaceOp } from './events.ts';
import { freezeJson } from './freeze-json.ts';
import type { JsonObject, JsonValue } from './json.ts';
import { jsonEquals } from './json-equals.ts';
import type { SurfaceIndex } from './surface-index.ts';

/** What the surface rules need to know about an earlier event (committed or earlier in the same batch). */
export interface EarlierEvent {
  readonly type: string;
  /** Lossless JSON (validated). */
  readonly data: unknown;
}
export type EventLookup = (seq: number) => EarlierEvent | undefined;

/**
 * Parses a `surfaceOp` value: `'append'` or exactly `{ op: 'replace', startSeq, endSeq }`, as lossless JSON like
 * every envelope value (a class instance, a symbol key or a non-enumerable property is `INVALID_JSON`, and a getter
 * is read once). Returns a frozen op.
 */
export function parseSurfaceOp(value: unknown): SurfaceOp {
  if (value === 'append') return 'append';
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    violation(`must be 'append' or { op: 'replace', startSeq, endSeq }`, 'surfaceOp');
  }
  const fields = freezeJson(value, 'surfaceOp') as JsonObject;
  const { op, startSeq, endSeq } = fields;
  if (op !== 'replace') violation(`op must be 'replace'`, 'surfaceOp.op');
  if (!isNonNegativeSafeInteger(startSeq)) violation('must be a non-negative integer', 'surfaceOp.startSeq');
  if (!isNonNegativeSafeInteger(endSeq)) violation('must be a non-negative integer', 'surfaceOp.endSeq');
  const extra = Object.keys(fields).find((key) => key !== 'op' && key !== 'startSeq' && key !== 'endSeq');
  if (extra !== undefined) violation(`unknown field '${extra}'`, 'surfaceOp');
  return Object.freeze({ op: 'replace', startSeq, endSeq });
}

/**
 * Parses `sourceEventSeqs`: unique non-negative integers, each smaller than the event's own `seq`;
 * `[]` only on `assistant/message`. Returns a frozen copy.
 */
export function parseSourceEventSeqs(value: unknown, type: string, seq: number): readonly number[] {
  if (!Array.isArray(value)) violation('must be an array of seqs', 'sourceEventSeqs');
  const seqs = freezeJson(value, 'sourceEventSeqs') as readonly JsonValue[];
  if (seqs.length === 0 && type !== 'assistant/message') {
    violation('[] is allowed only on assistant/message', 'sourceEventSeqs');
  }
  const seen = new Set<number>();
  for (let index = 0; index < seqs.length; index++) {
    const item = seqs[index];
    const path = `sourceEventSeqs[${index}]`;
    if (!isNonNegativeSafeInteger(item)) violation('must be a non-negative integer', path);
    if (item >= seq) violation(`${item} is not smaller than the event's own seq ${seq}`, path);
    if (seen.has(item)) violation(`${item} is listed twice`, path);
    seen.add(item);
  }
  return seqs as readonly number[];
}

/** `data` of a tool result with `message.content` left out, for the prune rule. */
export function withoutContent(data: JsonValue): JsonValue {
  const fields = data as JsonObject;
  const { content: _content, ...message } = fields['message'] as JsonObject;
  return { ...fields, message };
}

export interface SurfaceEventFields {
  readonly type: string;
  readonly data: JsonValue;
  readonly surfaceOp: SurfaceOp;
  readonly sourceEventSeqs: readonly number[] | undefined;
}

/**
 * Checks the surface rules for the surface event `event` at `seq` against `surface` and, when they hold, applies
 * it to `surface`. Nothing is written when a rule fails.
 * @throws SessionLogError `SURFACE_VIOLATION`.
 */
export function applySurfaceEvent(surface: SurfaceIndex, event: SurfaceEventFields, seq: number, lookup: EventLookup) {
  const op = event.surfaceOp;
  if (op === 'append') {
    surface.append(seq);
    return;
  }
  const startSlot = rangeEndSlot(surface, op, 'startSeq', seq);
  const endSlot = rangeEndSlot(surface, op, 'endSeq', seq);
  if (startSlot > endSlot) {
    violation(`startSeq ${op.startSeq} comes after endSeq ${op.endSeq} on the surface`, 'surfaceOp');
  }
  const listed = event.sourceEventSeqs ?? [];
  const sources: { has(seq: number): boolean } =
    listed.length > 16 ? new Set(listed) : { has: (seq) => listed.includes(seq) };
  const removed: number[] = [];
  for (let slot = startSlot; ; slot = surface.nextSlot(slot)) {
    const removedSeq = surface.seqAt(slot);
    if (!sources.has(removedSeq)) {
      violation(`must include every replaced node; ${removedSeq} is missing`, 'sourceEventSeqs');
    }
    removed.push(removedSeq);
    if (slot === endSlot) break;
  }
  if (event.type === 'tool/result') checkToolResultPrune(event, removed, lookup);
  if (startSlot === surface.headSlot && lookup(surface.headSeq)?.type === 'system/message') {
    if (event.type !== 'system/message' || startSlot !== endSlot) {
      violation(
        'a replacement that covers the leading system/message must be a system/message replacing exactly that node',
        'surfaceOp',
      );
    }
  }
  surface.replace(startSlot, endSlot, seq);
}

function rangeEndSlot(surface: SurfaceIndex, op: ReplaceOp, key: 'startSeq' | 'endSeq', seq: number): number {
  const target = op[key];
  if (target >= seq) violation(`${target} is not before the event's own seq ${seq}`, `surfaceOp.${key}`);
  const slot = surface.slotOf(target);
  if (slot < 0) violation(`${target} is not on the surface`, `surfaceOp.${key}`);
  return slot;
}

function checkToolResultPrune(event: SurfaceEventFields, removed: readonly number[], lookup: EventLookup): void {
  const target = removed.length === 1 ? lookup(removed[0]!) : undefined;
  if (target?.type !== 'tool/result') {
    violation('a tool/result replacement must replace exactly one tool/result', 'surfaceOp');
  }
  if (!jsonEquals(withoutContent(event.data), withoutContent(target.data as JsonValue))) {
    violation('a tool/result replacement may change only message.content', 'data');
  }
}
