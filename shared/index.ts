// `session-hub/shared`: the session log core (event types, validation, projection to messages), isomorphic and
// free of I/O. The wire protocol is `session-hub/protocol` (shared/protocol-index.ts).
export type * from './json.ts';
export type * from './events.ts';
export * from './errors.ts';
export { freezeJson, isFrozenJson, formatJsonPath, MAX_JSON_DEPTH } from './freeze-json.ts';
export { jsonEquals } from './json-equals.ts';
export {
  KNOWN_EVENT_TYPES,
  SURFACE_EVENT_TYPES,
  TURN_END_REASON_KINDS,
  isKnownEvent,
  isKnownType,
  isSurfaceType,
  isWellFormedEventType,
} from './event-types.ts';
export { projectEvent } from './project-event.ts';
export { deriveMessages, deriveSourcedMessages } from './derive-messages.ts';
export type { SourcedMessage } from './derive-messages.ts';
export { MessageProjector } from './message-projector.ts';
export type { ProjectionChange } from './message-projector.ts';
export { PROJECTOR_FORMAT_VERSION, checkProjectorState } from './projector-state.ts';
export type { ProjectorState } from './projector-state.ts';
export { normalizeDraft } from './normalize-draft.ts';
export { Session } from './session.ts';
export type { SessionListener, SessionOptions } from './session.ts';
export { parseJsonl, toJsonl } from './jsonl.ts';
export { validateLifecycle, repairInterrupted, INTERRUPTED_TOOL_OUTPUT } from './lifecycle.ts';
export type { LifecycleOptions } from './lifecycle.ts';
export { LifecycleViolationCode } from './lifecycle-tracker.ts';
export type { LifecycleViolation } from './lifecycle-tracker.ts';
