import { toEvent } from '../../../shared/log-validator.ts';
import { isSeq } from '../../../shared/protocol-parse.ts';
import { Packr } from 'msgpackr';
import type { JsonValue, SessionEvent, SurfaceOp } from '../../../shared/index.ts';
import { StoreDataError, type ValidatedDraft } from '../event-store.ts';
import { stringsAreUtf8 } from './msgpack-strings.ts';

/**
 * Binary form of one event's stored body (what the Redis engine keeps, and what both engines return in a
 * `StoredPage`): a msgpack array `[type, data]`, `[type, data, surfaceOp]` or
 * `[type, data, surfaceOp | nil, sourceEventSeqs]`. `seq` and `time` are not in the body: the seq is the stream
 * entry id, the time a field of the entry (and a header of published batches).
 */
const encoder = new Packr({ useRecords: false, mapsAsObjects: true });
// Decode maps as Map: msgpackr renames a `__proto__` key when it builds objects; we build them ourselves.
const decoder = new Packr({ useRecords: false, mapsAsObjects: false });

/** Encode the body of one validated draft (or of a committed event: its seq and time are left out). */
export function encodeEventBody(draft: ValidatedDraft | SessionEvent): Buffer {
  const body: unknown[] = [draft.type, draft.data];
  if (draft.sourceEventSeqs !== undefined) body.push(draft.surfaceOp ?? null, draft.sourceEventSeqs);
  else if (draft.surfaceOp !== undefined) body.push(draft.surfaceOp);
  return encoder.pack(body);
}

/** Decode a msgpack array of event bodies (the form published for a batch) into verified, deep-frozen drafts. */
export function decodeEventBodies(blob: Uint8Array, where: string): ValidatedDraft[] {
  const decoded = unpack(blob, where);
  if (!Array.isArray(decoded)) throw new StoreDataError(`${where}: expected an array of event bodies`);
  return decoded.map((body: unknown, index) => bodyToDraft(body, `${where}[${index}]`));
}

/** Decode one stored event body into a draft (verified, deep-frozen). */
export function decodeEventBody(blob: Uint8Array, where: string): ValidatedDraft {
  return bodyToDraft(unpack(blob, where), where);
}

function unpack(blob: Uint8Array, where: string): unknown {
  let decoded: unknown;
  try {
    decoded = decoder.unpack(blob);
  } catch (error) {
    throw new StoreDataError(`${where}: undecodable msgpack (${(error as Error).message})`, { cause: error });
  }
  // msgpackr turns a bad UTF-8 sequence into U+FFFD or another code point instead of throwing.
  if (!stringsAreUtf8(blob)) throw new StoreDataError(`${where}: a string is not well-formed UTF-8`);
  return decoded;
}

function bodyToDraft(body: unknown, where: string): ValidatedDraft {
  if (!Array.isArray(body) || body.length < 2 || body.length > 4) {
    throw new StoreDataError(`${where}: an event body must be an array of 2 to 4 items`);
  }
  const [type, data, surfaceOp, sourceEventSeqs] = body as unknown[];
  if (typeof type !== 'string' || type.length === 0) throw new StoreDataError(`${where}: bad event type`);
  const draft: { -readonly [K in keyof ValidatedDraft]: ValidatedDraft[K] } = {
    type,
    data: toFrozenJson(data, `${where}.data`),
  };
  if (surfaceOp !== undefined && surfaceOp !== null) draft.surfaceOp = toSurfaceOp(surfaceOp, where);
  if (sourceEventSeqs !== undefined) draft.sourceEventSeqs = toSeqList(sourceEventSeqs, where);
  return draft;
}

function toSurfaceOp(value: unknown, where: string): SurfaceOp {
  if (value === 'append') return 'append';
  if (value instanceof Map && value.size === 3 && value.get('op') === 'replace') {
    const startSeq: unknown = value.get('startSeq');
    const endSeq: unknown = value.get('endSeq');
    if (isSeq(startSeq) && isSeq(endSeq)) return Object.freeze({ op: 'replace', startSeq, endSeq });
  }
  throw new StoreDataError(`${where}: bad surfaceOp`);
}

function toSeqList(value: unknown, where: string): readonly number[] {
  if (!Array.isArray(value) || !value.every(isSeq)) throw new StoreDataError(`${where}: bad sourceEventSeqs`);
  return Object.freeze(value);
}

/** Verify a decoded value is lossless JSON and return it deep-frozen, with maps turned into plain objects. */
function toFrozenJson(value: unknown, path: string): JsonValue {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return value;
  if (typeof value === 'number') {
    // The core's lossless-JSON rule: finite, not -0, integers within ±(2^53-1).
    if (!Number.isFinite(value) || Object.is(value, -0) || (Number.isInteger(value) && !Number.isSafeInteger(value))) {
      throw new StoreDataError(`${path}: number out of range`);
    }
    return value;
  }
  if (Array.isArray(value)) {
    return Object.freeze(value.map((item: unknown, index) => toFrozenJson(item, `${path}[${index}]`)));
  }
  if (value instanceof Map) {
    const object: Record<string, JsonValue> = {};
    for (const [key, item] of value as Map<unknown, unknown>) {
      if (typeof key !== 'string') throw new StoreDataError(`${path}: non-string object key`);
      const converted = toFrozenJson(item, `${path}.${key}`);
      if (key === '__proto__') {
        Object.defineProperty(object, key, { value: converted, enumerable: true, writable: true, configurable: true });
      } else {
        object[key] = converted;
      }
    }
    return Object.freeze(object);
  }
  throw new StoreDataError(`${path}: not a JSON value`);
}

/** The committed event for a draft: envelope in the canonical key order, frozen (the core's own builder). */
export const toSessionEvent: (draft: ValidatedDraft, seq: number, time: number) => SessionEvent = toEvent;
