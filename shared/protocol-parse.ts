import { describeValue } from './describe-value.ts';
import type { EventDraft, SessionEvent, SurfaceOp } from './events.ts';
import { PROTOCOL_BOUNDS } from './protocol.ts';
import { checkProjectorState } from './projector-state.ts';
import { parseSessionMetadata, type MetadataPatch, type SessionMetadata } from './session-metadata.ts';
import type {
  ClientMessage,
  ErrorMessage,
  HubErrorCode,
  ServerMessage,
  SubscribeRequest,
  AnnouncedLimits,
  AppendRequest,
  ForkRequest,
  Watcher,
} from './protocol.ts';

/**
 * Parsers that narrow a decoded frame (`unknown`, see `decodeFrame`) to a protocol message. They check the
 * envelope only: field presence and types, integer ranges, and the size of every string and array field
 * (`PROTOCOL_BOUNDS`, checked before an array's entries are looked at). Event contents (`data`, surface rules) are checked by
 * the session-log core on append. Unknown extra fields are ignored (forward compatibility).
 */

export { isSeq, maxIdempotencyKeyUnits, ProtocolParseError } from './protocol-reader.ts';
import { isRecord, isSeq, KEY_RULE, own, ProtocolParseError, Reader } from './protocol-reader.ts';

function readerFor(value: unknown, side: 'client' | 'server'): { reader: Reader; type: string } {
  if (!isRecord(value)) throw new ProtocolParseError(`a ${side} message must be an object`);
  const type = own(value, 'type');
  if (typeof type !== 'string') {
    const id = own(value, 'id');
    throw new ProtocolParseError('message: field "type" must be a string', isSeq(id) ? id : undefined);
  }
  // Error messages start with the type; a long unknown one is named once, shortened, by the unknown-type error.
  return { reader: new Reader(value, type.length > PROTOCOL_BOUNDS.messageTypeUnits ? 'message' : type), type };
}

function parseDraft(reader: Reader, value: unknown, index: number): EventDraft {
  if (!isRecord(value)) reader.fail(`events[${index}] must be an object`);
  const type = own(value, 'type');
  if (typeof type !== 'string') reader.fail(`events[${index}].type must be a string`);
  if (type.length > PROTOCOL_BOUNDS.eventTypeUnits) {
    reader.fail(`events[${index}].type is longer than ${PROTOCOL_BOUNDS.eventTypeUnits} characters`);
  }
  // `surfaceOp` and `sourceEventSeqs` are checked by the session-log core (SURFACE_VIOLATION / INVALID_EVENT).
  const draft: { -readonly [K in keyof EventDraft]: EventDraft[K] } = { type, data: own(value, 'data') };
  const surfaceOp = own(value, 'surfaceOp');
  if (surfaceOp !== undefined) draft.surfaceOp = surfaceOp as SurfaceOp;
  const sourceEventSeqs = own(value, 'sourceEventSeqs');
  if (Array.isArray(sourceEventSeqs) && sourceEventSeqs.length > PROTOCOL_BOUNDS.sourceEventSeqs) {
    reader.fail(`events[${index}].sourceEventSeqs holds more than ${PROTOCOL_BOUNDS.sourceEventSeqs} entries`);
  }
  if (sourceEventSeqs !== undefined) draft.sourceEventSeqs = sourceEventSeqs as readonly number[];
  // Any other envelope field (`seq`, `time`, a typo) is kept, never dropped silently: the session-log core refuses
  // it with INVALID_EVENT naming the field. Defined, not assigned: a `__proto__` key stays a plain field.
  for (const key of Object.keys(value)) {
    if (draftFields.has(key)) continue;
    Object.defineProperty(draft, key, { value: value[key], enumerable: true, writable: true, configurable: true });
  }
  return draft;
}

/** The envelope fields of a draft. */
const draftFields: ReadonlySet<string> = new Set(['type', 'data', 'surfaceOp', 'sourceEventSeqs']);

function parseSubscribe(reader: Reader): SubscribeRequest {
  const message: { -readonly [K in keyof SubscribeRequest]: SubscribeRequest[K] } = {
    type: 'subscribe',
    id: reader.index('id'),
    sessionId: reader.sessionId(),
  };
  const fromSeq = reader.optionalIndex('fromSeq');
  if (fromSeq !== undefined) message.fromSeq = fromSeq;
  const epoch = reader.optionalString('epoch', { maxLength: PROTOCOL_BOUNDS.epochUnits });
  if (epoch !== undefined) message.epoch = epoch;
  if (own(reader.record, 'presence') !== undefined) message.presence = reader.boolean('presence');
  const label = reader.optionalString('label', { maxLength: MAX_WATCHER_LABEL_LENGTH, wellFormed: true });
  if (label !== undefined) message.label = label;
  if (own(reader.record, 'snapshot') !== undefined) message.snapshot = reader.boolean('snapshot');
  if (own(reader.record, 'metadata') !== undefined) message.metadata = reader.boolean('metadata');
  return message;
}

function parseAppend(reader: Reader): AppendRequest {
  const id = reader.index('id');
  const sessionId = reader.sessionId();
  const events = reader
    .array('events', PROTOCOL_BOUNDS.eventsPerAppend)
    .map((value, index) => parseDraft(reader, value, index));
  if (events.length === 0) reader.fail('field "events" must hold at least one event');
  const message: { -readonly [K in keyof AppendRequest]: AppendRequest[K] } = {
    type: 'append',
    id,
    sessionId,
    events,
  };
  const expectedSeq = reader.optionalIndex('expectedSeq');
  if (expectedSeq !== undefined) message.expectedSeq = expectedSeq;
  const idempotencyKey = reader.optionalString('idempotencyKey', KEY_RULE);
  if (idempotencyKey !== undefined) message.idempotencyKey = idempotencyKey;
  const after = reader.optionalString('after', KEY_RULE);
  if (after !== undefined) message.after = after;
  const time = reader.optionalIndex('time');
  if (time !== undefined) message.time = time;
  return message;
}

function parseFork(reader: Reader): ForkRequest {
  const [id, sessionId, atSeq] = [reader.index('id'), reader.sessionId(), reader.index('atSeq')];
  const newId = reader.optionalString('newId', { nonEmpty: true, maxLength: PROTOCOL_BOUNDS.sessionIdUnits });
  const repair = own(reader.record, 'repair') === undefined ? undefined : reader.boolean('repair');
  return {
    type: 'fork',
    id,
    sessionId,
    atSeq,
    ...(newId === undefined ? {} : { newId }),
    ...(repair ? { repair } : {}),
  };
}

/**
 * Narrow a decoded frame to a `ClientMessage`, or throw `ProtocolParseError` (code `BAD_REQUEST`) naming the
 * offending field.
 */
export function parseClientMessage(value: unknown): ClientMessage {
  const { reader, type } = readerFor(value, 'client');
  switch (type) {
    case 'hello': {
      const id = reader.index('id');
      const versions = reader.indexArray('versions', PROTOCOL_BOUNDS.versions);
      const token = reader.optionalToken();
      return token === undefined ? { type, id, versions } : { type, id, versions, token };
    }
    case 'auth':
      return { type, id: reader.index('id'), token: reader.token() };
    case 'subscribe':
      return parseSubscribe(reader);
    case 'unsubscribe':
      return { type, id: reader.index('id'), sessionId: reader.sessionId() };
    case 'append':
      return parseAppend(reader);
    case 'ping':
      return { type, id: reader.index('id') };
    case 'setMetadata': {
      const patch = own(reader.record, 'patch');
      if (!isRecord(patch)) reader.fail('field "patch" must be an object');
      // Only its envelope here: the hub checks the patch itself with `parseMetadataPatch` (INVALID_METADATA).
      return { type, id: reader.index('id'), sessionId: reader.sessionId(), patch: patch as MetadataPatch };
    }
    case 'fork':
      return parseFork(reader);
    default:
      return reader.fail(`unknown message type ${describeValue(type)}`);
  }
}

/** `welcome.limits` (optional): positive integers; unknown fields are dropped. */
function parseAnnouncedLimits(reader: Reader, value: unknown): AnnouncedLimits | undefined {
  if (value === undefined) return undefined;
  if (!isRecord(value)) return reader.fail('field "limits" must be an object');
  const limits = new Reader(value, `${reader.kind}.limits`);
  const positive = (name: string): number => limits.integer(name, 1);
  return {
    maxFrameBytes: positive('maxFrameBytes'),
    maxEventsPerAppend: positive('maxEventsPerAppend'),
    maxEventBytes: positive('maxEventBytes'),
  };
}

function parseEvents(reader: Reader): readonly SessionEvent[] {
  // A hub's frame is bounded by the SDK's `maxPayload`, not by a count here.
  const events = reader.array('events', Number.POSITIVE_INFINITY);
  events.forEach((event, index) => {
    if (!isRecord(event)) reader.fail(`events[${index}] must be an object`);
    const seq = own(event, 'seq');
    const time = own(event, 'time');
    if (!isSeq(seq) || !isSeq(time) || typeof own(event, 'type') !== 'string') {
      reader.fail(`events[${index}] needs integer seq and time and a string type`);
    }
  });
  return events as readonly SessionEvent[];
}

function parseDetails(reader: Reader): ErrorMessage['details'] {
  const details = own(reader.record, 'details');
  if (details === undefined) return undefined;
  if (!isRecord(details)) reader.fail('field "details" must be an object');
  for (const [key, item] of Object.entries(details)) {
    if (item !== null && !['string', 'number', 'boolean'].includes(typeof item)) {
      reader.fail(`details.${key} must be a string, number, boolean or null`);
    }
  }
  return details as ErrorMessage['details'];
}

function parseError(reader: Reader): ErrorMessage {
  const message: { -readonly [K in keyof ErrorMessage]: ErrorMessage[K] } = {
    type: 'error',
    code: reader.string('code', { nonEmpty: true }) as HubErrorCode,
    message: reader.string('message'),
  };
  const id = reader.optionalIndex('id');
  if (id !== undefined) message.id = id;
  const sessionId = reader.optionalString('sessionId');
  if (sessionId !== undefined) message.sessionId = sessionId;
  const details = parseDetails(reader);
  if (details !== undefined) message.details = details;
  return message;
}

/**
 * Narrow a decoded frame to a `ServerMessage` (for SDKs), or throw `ProtocolParseError`. Events inside `events`
 * frames are checked for `seq`, `time` and `type` only; unknown message types are rejected.
 */
export function parseServerMessage(value: unknown): ServerMessage {
  const { reader, type } = readerFor(value, 'server');
  switch (type) {
    case 'welcome': {
      const welcome = { type, id: reader.index('id'), version: reader.index('version'), node: reader.string('node') };
      const limits = parseAnnouncedLimits(reader, own(reader.record, 'limits'));
      return limits === undefined ? welcome : { ...welcome, limits };
    }
    case 'subscribed':
      return {
        type,
        id: reader.index('id'),
        sessionId: reader.string('sessionId'),
        epoch: reader.string('epoch'),
        headSeq: reader.integer('headSeq', -1),
      };
    case 'events': {
      const events = { type, sessionId: reader.string('sessionId'), events: parseEvents(reader) };
      const epoch = reader.optionalString('epoch', { maxLength: PROTOCOL_BOUNDS.epochUnits });
      return epoch === undefined ? events : { ...events, epoch };
    }
    case 'live':
      return { type, sessionId: reader.string('sessionId'), headSeq: reader.integer('headSeq', -1) };
    case 'snapshot': {
      const snapshot = {
        type,
        sessionId: reader.string('sessionId'),
        epoch: reader.string('epoch'),
        seq: reader.integer('seq', -1),
      };
      const declined = own(reader.record, 'declined');
      if (declined !== undefined && (declined !== 'TOO_LARGE' || snapshot.seq !== -1)) {
        return reader.fail(`snapshot.declined must be 'TOO_LARGE', on the empty projection at seq -1`);
      }
      const state = own(reader.record, 'state');
      if (state === null && declined === undefined) return { ...snapshot, state };
      try {
        const checked = { ...snapshot, state: checkProjectorState(state) };
        return declined === undefined ? checked : { ...checked, declined };
      } catch (error) {
        return reader.fail(`snapshot.state: ${(error as Error).message}`);
      }
    }
    case 'ack': {
      const ack = {
        type,
        id: reader.index('id'),
        sessionId: reader.string('sessionId'),
        epoch: reader.string('epoch'),
        firstSeq: reader.index('firstSeq'),
        lastSeq: reader.index('lastSeq'),
        time: reader.index('time'),
        duplicate: reader.boolean('duplicate'),
      };
      const trailerEvents = reader.optionalIndex('trailerEvents');
      if (trailerEvents === undefined) return ack;
      if (trailerEvents < 1 || trailerEvents > PROTOCOL_BOUNDS.trailerEvents) {
        return reader.fail(`field "trailerEvents" must be 1 to ${PROTOCOL_BOUNDS.trailerEvents}`);
      }
      return { ...ack, trailerEvents };
    }
    case 'forked': {
      const [id, sessionId, epoch, headSeq] = [
        reader.index('id'),
        reader.string('sessionId'),
        reader.string('epoch'),
        reader.integer('headSeq', -1),
      ];
      const [parent, forkSeq, depth] = [reader.string('parent'), reader.index('forkSeq'), reader.index('depth')];
      const [repaired, duplicate] = [reader.index('repaired'), reader.boolean('duplicate')];
      return { type, id, sessionId, epoch, headSeq, parent, forkSeq, depth, repaired, duplicate };
    }
    case 'reset':
      return {
        type,
        sessionId: reader.string('sessionId'),
        epoch: reader.string('epoch'),
        reason: reader.string('reason'),
      };
    case 'presence':
      return {
        type,
        sessionId: reader.string('sessionId'),
        watchers: parseWatchers(reader, 'watchers'),
        joined: parseWatchers(reader, 'joined'),
        left: parseWatchers(reader, 'left'),
      };
    case 'metadata': {
      const id = reader.optionalIndex('id');
      const sessionId = reader.string('sessionId');
      let metadata: SessionMetadata;
      try {
        metadata = parseSessionMetadata(own(reader.record, 'metadata'));
      } catch (error) {
        return reader.fail(`metadata: ${(error as Error).message}`);
      }
      return id === undefined ? { type, sessionId, metadata } : { type, id, sessionId, metadata };
    }
    case 'unsubscribed':
      return { type, id: reader.index('id'), sessionId: reader.string('sessionId') };
    case 'pong':
    case 'authenticated':
      return { type, id: reader.index('id') };
    case 'error':
      return parseError(reader);
    default:
      return reader.fail(`unknown message type ${describeValue(type)}`);
  }
}

/** Longest presence label (`subscribe({ label })`): `PROTOCOL_BOUNDS.watcherLabelUnits`. */
export const MAX_WATCHER_LABEL_LENGTH = PROTOCOL_BOUNDS.watcherLabelUnits;
/** Most watchers a `presence` message may list (the hub tracks at most 1,000 per session). */
const MAX_WATCHERS = 10_000;

function parseWatchers(reader: Reader, name: string): Watcher[] {
  const list = reader.array(name, MAX_WATCHERS);
  return list.map((value, index) => {
    if (!isRecord(value)) reader.fail(`${name}[${index}] must be an object`);
    const watcher = new Reader(value, `${reader.kind}.${name}[${index}]`);
    const label = watcher.optionalString('label');
    return {
      id: watcher.string('id'),
      subject: watcher.string('subject'),
      node: watcher.string('node'),
      since: watcher.index('since'),
      ...(label === undefined ? {} : { label }),
    };
  });
}
