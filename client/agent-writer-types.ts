import type { SessionEvent } from '../shared/events.ts';
import type { JsonValue } from '../shared/json.ts';

export interface AgentWriterOptions {
  /** The session's current log, if the caller has it; otherwise `attach` reads it with a subscription. */
  readonly events?: readonly SessionEvent[];
  /** The epoch `events` belong to (`subscription.epoch`), if known: it scopes `recover()`'s idempotency key. */
  readonly epoch?: string;
  /** Most events per append (drafts queued while an append is in flight go out together). Default 100. */
  readonly maxBatchEvents?: number;
  /**
   * Timeout of each append, and of `attach` reading the log (ms; Infinity: none); default: the client's
   * `requestTimeoutMs`.
   */
  readonly timeoutMs?: number;
}

export interface ToolCallInput {
  /** The id the model gave the call (it rides in the assistant message too). */
  readonly callId: string;
  readonly name: string;
  /** JSON text, or a value to serialize. */
  readonly arguments: string | JsonValue;
}

export interface ToolResultInput {
  readonly callId: string;
  readonly content: JsonValue;
  readonly isError?: boolean;
  readonly error?: JsonValue;
  readonly meta?: JsonValue;
}
