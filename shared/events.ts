import type { JsonObject, JsonValue } from './json.ts';

/** Replace a contiguous range of the surface (by seq) with the new event. */
export interface ReplaceOp {
  readonly op: 'replace';
  readonly startSeq: number;
  readonly endSeq: number;
}

/** How a surface event enters the surface. Only the four surface types may carry one. */
export type SurfaceOp = 'append' | ReplaceOp;

export type TurnEndReasonKind = 'completed' | 'aborted' | 'blocked' | 'error' | 'max-tokens' | 'interrupted';

export interface TurnEndReason extends JsonObject {
  readonly kind: TurnEndReasonKind;
}

export interface SystemMessage {
  readonly role: 'system';
  readonly content: string;
}

export interface UserMessage extends JsonObject {
  readonly role: 'user';
  readonly content: JsonValue;
}

export interface AssistantMessage extends JsonObject {
  readonly role: 'assistant';
}

// An intersection, not `interface … extends JsonObject`: the optional `toolCallId` must also type-check for
// consumers without exactOptionalPropertyTypes (where it reads `string | undefined`, which the index signature refuses).
export type ToolMessage = JsonObject & {
  readonly role: 'tool';
  /** The `callId` of the `tool/call` this answers (absent in the seed's example: then matched by `toolName`). */
  readonly toolCallId?: string;
  readonly toolName: string;
  readonly content: JsonValue;
  readonly isError: boolean;
};

/** A message of the history the model sees: the projection of one surface event. */
export type DerivedMessage = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

export interface TurnRef {
  readonly turn: number;
}
export interface StepRef {
  readonly turn: number;
  readonly step: number;
}

/** The data shape of every known event type. */
export interface EventDataMap {
  'turn/start': TurnRef;
  'turn/end': TurnRef & { readonly reason: TurnEndReason };
  'step/start': StepRef;
  'step/end': StepRef;
  'system/message': { readonly turn?: number; readonly step?: number; readonly content: string };
  'user/message': UserMessage;
  'assistant/chunk': StepRef & { readonly chunk: JsonValue };
  'assistant/message': StepRef & { readonly message: AssistantMessage; readonly usage?: JsonValue };
  'tool/call': StepRef & { readonly callId: string; readonly name: string; readonly arguments: string };
  'tool/result': StepRef & { readonly message: ToolMessage; readonly error?: JsonValue; readonly meta?: JsonValue };
  'request/header': {
    readonly header: { readonly config: JsonValue; readonly tools?: JsonValue };
    readonly reason: 'initial' | 'resume' | 'change';
  };
}

export type KnownEventType = keyof EventDataMap;
export type SurfaceEventType = 'system/message' | 'user/message' | 'assistant/message' | 'tool/result';

interface EventEnvelope {
  /** Position in the log: 0 for the first event, then +1 with no gaps. Assigned at commit. */
  readonly seq: number;
  /** Commit time, epoch milliseconds, assigned by the hub. */
  readonly time: number;
}

type KnownEventOf<T extends KnownEventType> = EventEnvelope & {
  readonly type: T;
  readonly data: EventDataMap[T];
} & (T extends SurfaceEventType
    ? { readonly surfaceOp: SurfaceOp; readonly sourceEventSeqs?: readonly number[] }
    : { readonly surfaceOp?: never; readonly sourceEventSeqs?: never });

/** A committed event of a known type; `switch (event.type)` narrows `event.data`. */
export type KnownEvent = { [T in KnownEventType]: KnownEventOf<T> }[KnownEventType];

/** A committed event of any other well-formed `<domain>/<name>` type: stored and broadcast, never projected. */
export interface ExtensionEvent extends EventEnvelope {
  readonly type: string;
  readonly data: JsonValue;
  readonly surfaceOp?: never;
  readonly sourceEventSeqs?: never;
}

/** Any committed event of the log. Narrow with `isKnownEvent` before switching on `type`. */
export type SessionEvent = KnownEvent | ExtensionEvent;

type KnownDraftOf<T extends KnownEventType> = {
  readonly type: T;
  readonly data: EventDataMap[T];
} & (T extends SurfaceEventType
  ? { readonly surfaceOp?: SurfaceOp; readonly sourceEventSeqs?: readonly number[] }
  : { readonly surfaceOp?: never; readonly sourceEventSeqs?: never });

/** A typed draft of a known event (what `AgentWriter` produces). */
export type KnownEventDraft = { [T in KnownEventType]: KnownDraftOf<T> }[KnownEventType];

/**
 * A draft that passed validation against a session (`Session.check`): normalized (`surfaceOp` defaulted to
 * `'append'` on surface types) and deep-frozen. Only `seq` and `time` are missing; the store assigns them.
 */
export interface ValidatedDraft {
  readonly type: string;
  readonly data: JsonValue;
  readonly surfaceOp?: SurfaceOp;
  readonly sourceEventSeqs?: readonly number[];
}

/**
 * What a writer appends: the store assigns `seq` and `time`. `data` is checked at run time
 * (lossless JSON, the known types' shapes), so it is typed loosely here.
 */
export interface EventDraft {
  readonly type: string;
  readonly data: unknown;
  readonly surfaceOp?: SurfaceOp | undefined;
  readonly sourceEventSeqs?: readonly number[] | undefined;
}

/** `T` when it is not a known type, else `never`: an extension draft cannot claim a known type. */
export type ExtensionEventType<T extends string> = T extends KnownEventType ? never : T;

/**
 * A draft of an extension event (any other well-formed `<domain>/<name>` type): JSON data, no surface fields.
 * With a literal `T` (see `CheckedDrafts`) a known type is refused; the default `string` is what TS can say about
 * a type only known at run time.
 */
export interface ExtensionEventDraft<T extends string = string> {
  readonly type: ExtensionEventType<T>;
  readonly data: JsonValue;
  readonly surfaceOp?: never;
  readonly sourceEventSeqs?: never;
}

/**
 * The strict draft for appending, for SDK signatures (`EventDraft` stays the loose run-time input of the wire edge):
 * a known type with its data shape, or an extension draft with JSON data.
 */
export type AppendDraft = KnownEventDraft | ExtensionEventDraft;

/** The draft type required for a draft whose `type` is `T`: the known shape, an extension, or (for `string`) either. */
export type AppendDraftFor<T extends string> = string extends T
  ? AppendDraft
  : T extends KnownEventType
    ? Extract<KnownEventDraft, { readonly type: T }>
    : ExtensionEventDraft<T>;

/**
 * True when nothing about draft `D` is known at compile time: its `type` is any `string`, or its `data` is `unknown`
 * (a value typed as `EventDraft`, or as a subtype of it that names its type but not its data).
 */
export type IsRuntimeTypedDraft<D> = D extends EventDraft
  ? string extends D['type']
    ? true
    : unknown extends D['data']
      ? true
      : false
  : false;

/**
 * What the SDK's loose `append` overload takes: a draft known only at run time (`IsRuntimeTypedDraft`) as it is,
 * checked by the hub; for a list, each such element as it is and every other element held to the strict type of
 * its literal `type` (`AppendDraftFor`), so a mistyped literal stays a compile error next to a built draft.
 */
export type RuntimeTypedDrafts<D> = D extends readonly EventDraft[]
  ? { readonly [K in keyof D]: IsRuntimeTypedDraft<D[K]> extends true ? D[K] : StrictDraftOf<D[K]> }
  : IsRuntimeTypedDraft<D> extends true
    ? D
    : never;

/** The strict draft type for a draft literal `D` (by its `type`). */
type StrictDraftOf<D> = D extends { readonly type: infer T extends string } ? AppendDraftFor<T> : never;

/**
 * Checks draft literals element by element, so that a known type with a mistyped `data` cannot pass as an
 * extension draft: `append<const D extends readonly AppendDraft[]>(drafts: D & CheckedDrafts<D>)`.
 */
export type CheckedDrafts<D extends readonly AppendDraft[]> = {
  readonly [K in keyof D]: AppendDraftFor<D[K]['type']>;
};
