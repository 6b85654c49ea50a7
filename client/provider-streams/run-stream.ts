import type { JsonObject, JsonValue } from '../../shared/json.ts';
import { ClientErrorCode, HubClientError } from '../errors.ts';
import { ChunkCoalescer } from './chunk-coalescer.ts';
import { losslessCopy } from './lossless.ts';
import { MessageAssembler } from './message-assembler.ts';
import type { ProviderStreamOptions, StreamedAssistant, StreamTarget } from './types.ts';

/** What a provider's event reader reports once the stream is over. */
export interface StreamOutcome {
  /** The stream's final event came (`[DONE]`-side finish reason, `message_stop`, `response.completed`, …). */
  readonly finished: boolean;
  readonly finishReason: string | null;
  readonly usage: JsonValue | undefined;
  /** A failure the provider reported as an event rather than a thrown error (Responses `response.failed`). */
  readonly failure: Error | undefined;
}

/** Reads one provider's events into the assembler. */
export interface ProviderReader<E> {
  read(event: E, message: MessageAssembler): void;
  outcome(): StreamOutcome;
}

const DEFAULT_COALESCE_MS = 5;
const DEFAULT_MAX_CHUNK_CHARS = 8192;

/**
 * Consumes a provider stream into the open step: chunks as deltas come (coalesced), then the `assistant/message`
 * (citing the chunks, with the usage) and a `tool/call` per call. A stream that throws or ends before its final
 * event still commits what arrived, marked `interrupted: true` and without tool calls, so the step stays
 * well-formed; a thrown error (or a reported failure) is rethrown after that commit.
 */
export async function runProviderStream<E>(
  target: StreamTarget,
  stream: AsyncIterable<E>,
  reader: ProviderReader<E>,
  options: ProviderStreamOptions,
): Promise<StreamedAssistant> {
  if (!target.stepOpen) {
    throw new HubClientError(ClientErrorCode.INVALID_STATE, 'stream a model response inside an open step', {
      sessionId: target.sessionId,
    });
  }
  const chunks = new ChunkCoalescer(
    (chunk) => void target.streamChunk(chunk).catch(() => undefined), // a failed write fails the commit below
    options.coalesceMs ?? DEFAULT_COALESCE_MS,
    options.maxChunkChars ?? DEFAULT_MAX_CHUNK_CHARS,
  );
  const message = new MessageAssembler(chunks);
  let thrown: { readonly error: unknown } | undefined;
  try {
    for await (const event of stream) reader.read(event, message);
  } catch (error) {
    thrown = { error };
  }
  chunks.flush();
  const outcome = reader.outcome();
  const interrupted = thrown !== undefined || outcome.failure !== undefined || !outcome.finished;
  const { content, calls } = message.build(interrupted);
  const body: JsonObject = interrupted ? { content, interrupted: true } : { content };
  const committed = target.commitAssistantMessage(body as { content: JsonValue }, outcome.usage);
  const callEvents = calls.map((call) => target.toolCall(call));
  const event = await committed;
  await Promise.all(callEvents);
  if (thrown !== undefined) throw thrown.error;
  if (outcome.failure !== undefined) throw outcome.failure;
  return { message: event, toolCalls: calls, finishReason: outcome.finishReason, interrupted, usage: outcome.usage };
}

/** The usage the log keeps: token counts under common names, and the provider's own report (as JSON). */
export function normalizedUsage(provider: unknown, inputTokens: unknown, outputTokens: unknown): JsonValue {
  const reported = losslessCopy(provider);
  return {
    ...(isCount(inputTokens) ? { inputTokens } : {}),
    ...(isCount(outputTokens) ? { outputTokens } : {}),
    ...(reported === undefined ? {} : { provider: reported }),
  };
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}
