import type { SessionEvent } from '../../shared/events.ts';
import type { JsonValue } from '../../shared/json.ts';

/** Options of `AgentWriter.streamOpenAIChat` / `streamOpenAIResponses` / `streamAnthropic`. */
export interface ProviderStreamOptions {
  /**
   * Deltas of the same kind arriving within this many milliseconds of the first go into one `assistant/chunk`
   * (default 5; 0 writes a chunk per delta). A chunk is also cut at `maxChunkChars` and when the kind changes.
   */
  readonly coalesceMs?: number;
  /** Most characters of text in one chunk (default 8192). */
  readonly maxChunkChars?: number;
}

/** A tool call the model asked for, to run and answer with `writer.toolResult({ callId, content })`. */
export interface StreamedToolCall {
  readonly callId: string;
  readonly name: string;
  /** The arguments as the model wrote them (JSON text). */
  readonly arguments: string;
  /**
   * The parsed arguments, as lossless JSON (`-0` as 0, lone surrogates as U+FFFD); `{}` when they are not JSON or
   * hold a number JSON cannot carry losslessly (an integer beyond 2^53): `arguments` keeps the exact text.
   */
  readonly input: JsonValue;
}

/** What a provider stream left in the session. */
export interface StreamedAssistant {
  /** The committed `assistant/message` event (its `sourceEventSeqs` are the chunks' seqs). */
  readonly message: SessionEvent;
  /** The calls to run; a `tool/call` event was committed for each. Empty when `interrupted`. */
  readonly toolCalls: readonly StreamedToolCall[];
  /** The provider's reason for stopping (`stop`, `tool_calls`, `end_turn`, `max_tokens`, …), null if none came. */
  readonly finishReason: string | null;
  /**
   * True when the stream ended before its final event (aborted): the message holds what arrived, is marked
   * `interrupted: true`, and has no tool calls (a half-streamed call cannot run). End the turn `'interrupted'`.
   */
  readonly interrupted: boolean;
  /** `{ inputTokens, outputTokens, provider }` from the provider's usage report, when one came. */
  readonly usage: JsonValue | undefined;
}

/** The writer operations a stream consumer uses (`AgentWriter` has them). */
export interface StreamTarget {
  readonly sessionId: string;
  readonly stepOpen: boolean;
  streamChunk(chunk: JsonValue): Promise<SessionEvent>;
  commitAssistantMessage(
    message: { readonly content: JsonValue; readonly interrupted?: boolean },
    usage?: JsonValue,
  ): Promise<SessionEvent>;
  toolCall(call: { readonly callId: string; readonly name: string; readonly arguments: string }): Promise<SessionEvent>;
}
