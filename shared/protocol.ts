import type { EventDraft, SessionEvent } from './events.ts';
import type { ProjectorState } from './projector-state.ts';
import type { MetadataPatch, SessionMetadata } from './session-metadata.ts';

export type { MetadataPatch, SessionMetadata } from './session-metadata.ts';

/**
 * Wire protocol v1 between SDKs and the hub (see docs/protocol.md).
 * Every frame is one message object; binary frames are msgpack, text frames JSON.
 * Client requests carry `id` (a request id chosen by the client); replies echo it.
 *
 * Seq vocabulary:
 * - `headSeq`: seq of the last committed event of a session, -1 when it is empty.
 * - `fromSeq`: first seq a subscriber wants (default 0). `fromSeq = headSeq + 1` means "only new events".
 * - `expectedSeq`: the seq the first event of an append must receive (= headSeq + 1), or the append fails with
 *   `SEQ_CONFLICT`.
 * - `epoch`: identity of a session's stored data; it changes when the data was lost, and a client holding a
 *   position under another epoch is sent `reset`. Empty (`''`) while the session has none: its first commit
 *   creates it (a read never does).
 */
export const PROTOCOL_VERSION = 1;
export const SUPPORTED_PROTOCOL_VERSIONS: readonly number[] = [1];

/**
 * Hard bounds on the fields of client messages, the one place they are named. `parseClientMessage` refuses a message
 * beyond any of them with BAD_REQUEST (naming the field) before the hub acts on it, so that no frame can make a node
 * do work out of proportion to its size (a 1 MiB frame holds a million one-byte array entries). Lengths of strings
 * are in UTF-16 code units. A node's configurable limits (`maxEventsPerAppend`, …) are checked after these and are
 * lower.
 */
export const PROTOCOL_BOUNDS = Object.freeze({
  /** Length of the `type` of a message. */
  messageTypeUnits: 64,
  /** Entries of `hello.versions`. */
  versions: 16,
  /** Length of a token (`hello.token`, `auth.token`); a JWT with many claims stays far below. */
  tokenUnits: 16 * 1024,
  /** Length of a `sessionId` (the store checks the precise rule: 1–256 code points, no control characters). */
  sessionIdUnits: 1024,
  /** Length of `subscribe.epoch`. */
  epochUnits: 256,
  /** Length of `subscribe.label` (how a watcher is named in presence). */
  watcherLabelUnits: 128,
  /** Length of an `idempotencyKey` (and so of `after`, which names one); the SDK checks keys against it too. */
  idempotencyKeyUnits: 256,
  /** Events in one append frame (a ceiling far above any node's `maxEventsPerAppend`, which answers BATCH_TOO_LARGE). */
  eventsPerAppend: 100_000,
  /** Length of an event's `type` (the session-log core allows 256). */
  eventTypeUnits: 256,
  /** Entries of an event's `sourceEventSeqs`. */
  sourceEventSeqs: 10_000,
  /** `ack.trailerEvents`: events a hub commits behind an append's own (today at most 1, a scan's audit). */
  trailerEvents: 16,
});

// ---- client -> hub -------------------------------------------------------------------------------------------

export interface HelloRequest {
  readonly type: 'hello';
  readonly id: number;
  /** Protocol versions the client speaks; the hub picks the highest it shares. */
  readonly versions: readonly number[];
  /** Bearer token (JWT). Also accepted on the upgrade request (header or `?token=`). */
  readonly token?: string;
}

/** Replace the connection's token (refresh before expiry). */
export interface AuthRequest {
  readonly type: 'auth';
  readonly id: number;
  readonly token: string;
}

export interface SubscribeRequest {
  readonly type: 'subscribe';
  readonly id: number;
  readonly sessionId: string;
  readonly fromSeq?: number;
  /** The epoch the client's position belongs to; a mismatch gets `reset`. */
  readonly epoch?: string;
  /** Send `presence` messages: who watches this session, on every node (default false: nothing extra). */
  readonly presence?: boolean;
  /** How this watcher is named to others in presence (e.g. `inspector`, `agent-7`); at most 128 characters. */
  readonly label?: string;
  /**
   * Start from the session's projection snapshot: a `snapshot` frame comes before `subscribed`, then the events after
   * its seq. With `fromSeq` and `epoch` (a resumed copy), the copy is kept when it is of the session's epoch and at
   * or past the snapshot (the frame then carries `state: null`).
   */
  readonly snapshot?: boolean;
  /** Send `metadata` frames: the session's metadata after `subscribed`, then each change, from any node. */
  readonly metadata?: boolean;
}

/**
 * Merge a patch into a session's metadata (needs `append` on the session). Answered with a `metadata` frame
 * carrying the request's `id`; a patch beyond `METADATA_LIMITS` is INVALID_METADATA, a session that does not exist
 * NOT_FOUND, and nothing is changed.
 */
export interface SetMetadataRequest {
  readonly type: 'setMetadata';
  readonly id: number;
  readonly sessionId: string;
  readonly patch: MetadataPatch;
}

export interface UnsubscribeRequest {
  readonly type: 'unsubscribe';
  readonly id: number;
  readonly sessionId: string;
}

export interface AppendRequest {
  readonly type: 'append';
  readonly id: number;
  readonly sessionId: string;
  readonly events: readonly EventDraft[];
  readonly expectedSeq?: number;
  /** Dedupe key, kept for the session's lifetime: a retried append with the same key commits once. */
  readonly idempotencyKey?: string;
  /**
   * Pipelining: the idempotency key of the append of the same session this one was sent right behind on this
   * connection, while that one was still unanswered. If that one failed with a retry-later code (or was itself
   * refused this way), this one is refused with APPEND_FENCED and nothing is written, so it never overtakes it.
   */
  readonly after?: string;
  /**
   * Import mode (needs `admin` on the session as well as `append`): store this commit time (epoch ms) for every
   * event of the append instead of the hub's clock. It must not be before the session's last event's time nor in
   * the future (INVALID_EVENT). Ordinary appends leave it out and get the hub's time.
   */
  readonly time?: number;
}

export interface PingRequest {
  readonly type: 'ping';
  readonly id: number;
}

export type { ForkedMessage, ForkRequest } from './protocol-forks.ts';
import type { ForkedMessage, ForkRequest } from './protocol-forks.ts';

export type ClientMessage =
  | HelloRequest
  | AuthRequest
  | SubscribeRequest
  | UnsubscribeRequest
  | AppendRequest
  | SetMetadataRequest
  | PingRequest
  | ForkRequest;
export type ClientMessageType = ClientMessage['type'];

// ---- hub -> client -------------------------------------------------------------------------------------------

export interface WelcomeMessage {
  readonly type: 'welcome';
  readonly id: number;
  readonly version: number;
  /** Name of the hub node (for logs and debugging). */
  readonly node: string;
  /** The node's limits on appends, so a client can size its appends to them (absent from hubs before 0.2). */
  readonly limits?: AnnouncedLimits;
}

/** What a hub node announces of its limits in `welcome`. */
export interface AnnouncedLimits {
  /** Largest frame the node takes (bytes); a bigger one closes the connection with 1009. */
  readonly maxFrameBytes: number;
  /** Most events in one append (BATCH_TOO_LARGE beyond). */
  readonly maxEventsPerAppend: number;
  /** Largest event (its JSON, in bytes; EVENT_TOO_LARGE beyond). */
  readonly maxEventBytes: number;
}

/** Reply to `subscribe`: the subscription exists; catch-up `events` follow, then `live`. */
export interface SubscribedMessage {
  readonly type: 'subscribed';
  readonly id: number;
  readonly sessionId: string;
  readonly epoch: string;
  readonly headSeq: number;
}

export interface EventsMessage {
  readonly type: 'events';
  readonly sessionId: string;
  /**
   * Set only on the first `events` frame after the session got its first epoch, to a subscriber that was told it
   * had none (`subscribed.epoch` or `reset.epoch` empty: nothing written yet). These events and those after belong
   * to it; the client adopts it (no reset: it held no events).
   */
  readonly epoch?: string;
  /** Contiguous, ascending by seq. */
  readonly events: readonly SessionEvent[];
}

/**
 * To a `subscribe` with `snapshot: true`, before `subscribed`: where the subscription starts. `state` is the
 * projection of the log's seqs 0..`seq` in `epoch` (seq -1 and an empty state when there is no snapshot: the events
 * then follow from seq 0); `null` when the client's own copy (its `fromSeq` and `epoch`) is current: it keeps it,
 * and `seq` is its `fromSeq - 1`. The events that follow start at `seq + 1`.
 */
export interface SnapshotMessage {
  readonly type: 'snapshot';
  readonly sessionId: string;
  /** `''` while the session has none. */
  readonly epoch: string;
  readonly seq: number;
  readonly state: ProjectorState | null;
  /**
   * Set when the hub has a snapshot but does not send it: `'TOO_LARGE'`, its frame would be above the node's
   * `maxFrameBytes`. The frame is then the empty projection at seq -1 (as when there is no snapshot): the events
   * follow from seq 0, so the messages are exact all the same.
   */
  readonly declined?: SnapshotDeclined;
}

/** Why a hub did not send the snapshot it has (see `SnapshotMessage.declined`). */
export type SnapshotDeclined = 'TOO_LARGE';

/** Catch-up is done: every event up to `headSeq` was sent; live events follow. */
export interface LiveMessage {
  readonly type: 'live';
  readonly sessionId: string;
  readonly headSeq: number;
}

export interface AckMessage {
  readonly type: 'ack';
  readonly id: number;
  readonly sessionId: string;
  readonly epoch: string;
  readonly firstSeq: number;
  readonly lastSeq: number;
  /** Commit time of the batch (all its events share it). */
  readonly time: number;
  /** True when the idempotency key had already committed: the original seqs are returned. */
  readonly duplicate: boolean;
  /**
   * Events the hub committed right behind this append's own, in the same commit: they took seqs `lastSeq + 1` to
   * `lastSeq + trailerEvents`, so the session's next seq is past them. Today only the `audit/redaction` of a
   * redaction at append (`serve --secrets redact`). Absent when none (1 to `PROTOCOL_BOUNDS.trailerEvents`).
   */
  readonly trailerEvents?: number;
}

/** The client's position is void (epoch changed: the session's data was lost). Restart from seq 0. */
export interface ResetMessage {
  readonly type: 'reset';
  readonly sessionId: string;
  readonly epoch: string;
  readonly reason: string;
}

/** One subscription to a session, on some node (presence). */
export interface Watcher {
  readonly id: string;
  /** The token's subject, or `anonymous` on an open hub. */
  readonly subject: string;
  readonly node: string;
  /** Epoch ms the subscription started. */
  readonly since: number;
  /**
   * What the subscribing client called itself (`subscribe({ label })`): its own choice, verified by nobody. Show it
   * after `subject`, marked as such, never in its place.
   */
  readonly label?: string;
}

/** Who watches a session (to subscriptions that asked for `presence`): the whole list, and what changed. */
export interface PresenceMessage {
  readonly type: 'presence';
  readonly sessionId: string;
  readonly watchers: readonly Watcher[];
  readonly joined: readonly Watcher[];
  readonly left: readonly Watcher[];
}

/**
 * A session's metadata: the reply to `setMetadata` (with its `id`), and, to subscriptions that asked for `metadata`,
 * the current one after `subscribed` and each change (no `id`). Of two, the higher `metadata.rev` is the newer.
 */
export interface MetadataMessage {
  readonly type: 'metadata';
  readonly id?: number;
  readonly sessionId: string;
  readonly metadata: SessionMetadata;
}

export interface UnsubscribedMessage {
  readonly type: 'unsubscribed';
  readonly id: number;
  readonly sessionId: string;
}

/** Reply to `auth`: the new token was accepted and replaces the connection's credentials. */
export interface AuthenticatedMessage {
  readonly type: 'authenticated';
  readonly id: number;
}

export interface PongMessage {
  readonly type: 'pong';
  readonly id: number;
}

export interface ErrorMessage {
  readonly type: 'error';
  /** The request this answers, when there is one. */
  readonly id?: number;
  readonly code: HubErrorCode;
  readonly message: string;
  /** Set when the error ends a subscription or concerns one session. */
  readonly sessionId?: string;
  /** Code-specific facts, e.g. `{ headSeq }` for SEQ_CONFLICT, `{ path, seq }` for INVALID_JSON. */
  readonly details?: Readonly<Record<string, string | number | boolean | null>>;
}

export type ServerMessage =
  | WelcomeMessage
  | SnapshotMessage
  | SubscribedMessage
  | EventsMessage
  | LiveMessage
  | AckMessage
  | ForkedMessage
  | ResetMessage
  | PresenceMessage
  | MetadataMessage
  | UnsubscribedMessage
  | AuthenticatedMessage
  | PongMessage
  | ErrorMessage;

// ---- errors and close codes ----------------------------------------------------------------------------------

/** Stable error codes on the wire (and on the SDK's `HubClientError`). */
export const HubErrorCode = {
  // session log (from the shared core)
  INVALID_JSON: 'INVALID_JSON',
  INVALID_EVENT: 'INVALID_EVENT',
  SURFACE_VIOLATION: 'SURFACE_VIOLATION',
  /** The append would break a lifecycle rule; `details.rule` names it, `details.seq` the event. */
  LIFECYCLE_VIOLATION: 'LIFECYCLE_VIOLATION',
  // protocol
  /** The frame could not be decoded (bad msgpack / JSON). */
  PARSE_ERROR: 'PARSE_ERROR',
  /** The message decoded but its shape is wrong (unknown type, missing or mistyped field). */
  BAD_REQUEST: 'BAD_REQUEST',
  UNSUPPORTED_VERSION: 'UNSUPPORTED_VERSION',
  // seqs and sessions
  /** `expectedSeq` did not match the head; `details.headSeq` has the current one. */
  SEQ_CONFLICT: 'SEQ_CONFLICT',
  /** `fromSeq` lies beyond the head + 1, or a page request is out of range. */
  SEQ_OUT_OF_RANGE: 'SEQ_OUT_OF_RANGE',
  /**
   * The seqs asked for are no longer held (trimmed from the log: past retention, or archived where no archive is
   * read): `details.firstSeq` is the first seq still held. HTTP 410. Final for a subscription (`sessionId` set):
   * reading again from below `firstSeq` hits it again; subscribe from `firstSeq` to follow what is kept.
   */
  GONE: 'GONE',
  ALREADY_SUBSCRIBED: 'ALREADY_SUBSCRIBED',
  NOT_SUBSCRIBED: 'NOT_SUBSCRIBED',
  NOT_FOUND: 'NOT_FOUND',
  /** The same idempotency key was used for a different batch. */
  IDEMPOTENCY_MISMATCH: 'IDEMPOTENCY_MISMATCH',
  /** A metadata patch breaks a bound or a rule (`METADATA_LIMITS`); `details.field` names the field. Nothing changed. */
  INVALID_METADATA: 'INVALID_METADATA',
  // forks (docs/protocol.md#forks)
  /** `fork.atSeq` lies inside a turn (`details.turn`) and `repair` was not asked: no fork made. */
  FORK_INSIDE_TURN: 'FORK_INSIDE_TURN',
  /** The fork's new id names a session that exists (another fork's lineage in `details`): nothing made. */
  FORK_TARGET_EXISTS: 'FORK_TARGET_EXISTS',
  /** The forked session changed epoch (deleted, data lost) while forking, or a fork's parent did since. */
  FORK_PARENT_CHANGED: 'FORK_PARENT_CHANGED',
  /** A fork would nest deeper than 32 levels (`details.depth`). */
  FORK_TOO_DEEP: 'FORK_TOO_DEEP',
  /** A session with forks cannot be deleted (they read their prefix from it): delete the forks first. */
  HAS_FORKS: 'HAS_FORKS',
  // auth
  UNAUTHORIZED: 'UNAUTHORIZED',
  TOKEN_EXPIRED: 'TOKEN_EXPIRED',
  FORBIDDEN: 'FORBIDDEN',
  // limits
  FRAME_TOO_LARGE: 'FRAME_TOO_LARGE',
  /** HTTP: the body's content type is not `application/json` or `application/msgpack` (415). */
  UNSUPPORTED_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  BATCH_TOO_LARGE: 'BATCH_TOO_LARGE',
  EVENT_TOO_LARGE: 'EVENT_TOO_LARGE',
  TOO_MANY_SUBSCRIPTIONS: 'TOO_MANY_SUBSCRIPTIONS',
  TOO_MANY_CONNECTIONS: 'TOO_MANY_CONNECTIONS',
  RATE_LIMITED: 'RATE_LIMITED',
  /** The append holds a secret (`serve --secrets reject`): nothing was stored. */
  SECRET_DETECTED: 'SECRET_DETECTED',
  /**
   * The append named by `after` failed on this connection with a "retry later" code (STORE_UNAVAILABLE,
   * RATE_LIMITED, APPEND_FENCED) and was not re-sent since: nothing was written, so that a pipelined append never
   * overtakes an earlier one. Re-send that one (`details.after`) first, then this one.
   */
  APPEND_FENCED: 'APPEND_FENCED',
  // availability
  /** The store (Redis) is unreachable; nothing was written. Retry later. */
  STORE_UNAVAILABLE: 'STORE_UNAVAILABLE',
  SHUTTING_DOWN: 'SHUTTING_DOWN',
  /**
   * A stored entry of the session failed verification on read (corrupted data): the subscription ends (`sessionId`,
   * `details.seq` = the first seq that could not be read). Needs an operator; resubscribing hits it again.
   */
  DATA_CORRUPTED: 'DATA_CORRUPTED',
  /**
   * The session was deleted by the retention rules (idle past its rule): its events are gone. Final: a subscription
   * ends with it (`sessionId`, `details.expiredAt` in epoch ms), HTTP reads answer 410. An append starts a new log.
   */
  SESSION_EXPIRED: 'SESSION_EXPIRED',
  INTERNAL: 'INTERNAL',
} as const;
export type HubErrorCode = (typeof HubErrorCode)[keyof typeof HubErrorCode];

/** WebSocket close codes the hub uses. SDKs reconnect on all but the ones marked final. */
export const CloseCode = {
  NORMAL: 1000,
  /** Hub node shutting down: reconnect (to another node) right away. */
  GOING_AWAY: 1001,
  /** Protocol violation (e.g. hello missing or unsupported version). Final. */
  PROTOCOL_ERROR: 1002,
  /** Auth failed or required and missing. Final until the token changes. */
  POLICY_VIOLATION: 1008,
  /** Frame larger than the limit. */
  MESSAGE_TOO_BIG: 1009,
  INTERNAL_ERROR: 1011,
  /** Hub at its connection limit: reconnect with backoff. */
  TRY_AGAIN_LATER: 1013,
  /** The client stopped reading (outbound buffer full for too long). */
  SLOW_CONSUMER: 4008,
  /** Too many requests for too long. */
  RATE_LIMITED: 4029,
} as const;
export type CloseCode = (typeof CloseCode)[keyof typeof CloseCode];
