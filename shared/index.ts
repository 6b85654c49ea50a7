// `session-hub/shared`: the session log core (event types, validation, projection to messages), isomorphic and
// free of I/O. The wire protocol is `session-hub/protocol` (shared/protocol-index.ts). Every name is listed here
// (no `export *`): the public surface is this list, and api/shared.api.md is its report (docs/architecture.md).
export type { JsonPrimitive, JsonValue, JsonObject } from './json.ts';
export type {
  AppendDraft,
  AppendDraftFor,
  AssistantMessage,
  CheckedDrafts,
  DerivedMessage,
  EventDataMap,
  EventDraft,
  ExtensionEvent,
  ExtensionEventDraft,
  ExtensionEventType,
  KnownEvent,
  KnownEventDraft,
  KnownEventType,
  ReplaceOp,
  RuntimeTypedDrafts,
  SessionEvent,
  StepRef,
  SurfaceEventType,
  SurfaceOp,
  SystemMessage,
  ToolMessage,
  TurnEndReason,
  TurnEndReasonKind,
  TurnRef,
  UserMessage,
  ValidatedDraft,
} from './events.ts';
export { SessionLogError, SessionLogErrorCode, type SessionLogErrorOptions } from './errors.ts';
export { freezeJson, MAX_JSON_DEPTH } from './freeze-json.ts';
export { jsonEquals } from './json-equals.ts';
export { isKnownEvent, isKnownType, isSurfaceType, isWellFormedEventType } from './event-types.ts';
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
export { forkPoint } from './fork-point.ts';
export type { ForkPoint } from './fork-point.ts';
export { LifecycleViolationCode } from './lifecycle-tracker.ts';
export type { LifecycleViolation } from './lifecycle-tracker.ts';
export { REDACTED_TEXT, REDACTION_AUDIT_TYPE, isRedactionAudit, redactEventData, redactedSeqsOf } from './redaction.ts';
export type { RedactionAudit } from './redaction.ts';
