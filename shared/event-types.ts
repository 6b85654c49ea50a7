import type { KnownEvent, KnownEventType, SessionEvent, SurfaceEventType, TurnEndReasonKind } from './events.ts';

/** Every known event type (the catalog of the reference). Other well-formed types are extension events. */
export const KNOWN_EVENT_TYPES: readonly KnownEventType[] = Object.freeze([
  'turn/start',
  'turn/end',
  'step/start',
  'step/end',
  'system/message',
  'user/message',
  'assistant/chunk',
  'assistant/message',
  'tool/call',
  'tool/result',
  'request/header',
] as const);

/** The four surface types: the only ones that carry `surfaceOp` and `sourceEventSeqs` and project to messages. */
export const SURFACE_EVENT_TYPES: readonly SurfaceEventType[] = Object.freeze([
  'system/message',
  'user/message',
  'assistant/message',
  'tool/result',
] as const);

export const TURN_END_REASON_KINDS: readonly TurnEndReasonKind[] = Object.freeze([
  'completed',
  'aborted',
  'blocked',
  'error',
  'max-tokens',
  'interrupted',
] as const);

const knownTypes: ReadonlySet<string> = new Set(KNOWN_EVENT_TYPES);

/** True for the four surface types (`system/message`, `user/message`, `assistant/message`, `tool/result`). */
export function isSurfaceType(type: string): type is SurfaceEventType {
  return type === 'user/message' || type === 'assistant/message' || type === 'tool/result' || type === 'system/message';
}

/** True for the types of the catalog. */
export function isKnownType(type: string): type is KnownEventType {
  return knownTypes.has(type);
}

/**
 * Narrows a committed event to the known-type union, after which `switch (event.type)` narrows `event.data`.
 * (Committed events were validated, so a known type always carries its data shape.)
 */
export function isKnownEvent(event: SessionEvent): event is KnownEvent {
  return knownTypes.has(event.type);
}

/** `<domain>/<name>`: non-empty segments without whitespace, separated by `/`. */
const eventTypePattern = /^[^\s/]+(?:\/[^\s/]+)+$/u;

/** True when `type` is a well-formed event type string. */
export function isWellFormedEventType(type: unknown): type is string {
  return typeof type === 'string' && type.length <= 256 && eventTypePattern.test(type);
}
