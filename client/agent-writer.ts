import type {
  AssistantMessage,
  EventDataMap,
  KnownEventDraft,
  SessionEvent,
  TurnEndReason,
  TurnEndReasonKind,
} from '../shared/events.ts';
import type { JsonObject, JsonValue } from '../shared/json.ts';
import { isKnownType, repairInterrupted } from '../shared/index.ts';
import { checkTimeoutMs } from './options-check.ts';
import { prepareDraft, trailerSeqsOf } from './committed.ts';
import { ClientErrorCode, HubClientError } from './errors.ts';
import type { HubClient } from './hub-client.ts';
import { randomUuid } from './random-id.ts';
import { handled, rejectedHandled } from './handled-promise.ts';
import type { AgentWriterOptions, ToolCallInput, ToolResultInput } from './agent-writer-types.ts';
import { encodedDraft } from './append-frame.ts';
import { encodeRequest } from './wire.ts';
import { readSessionLog } from './read-log.ts';
import * as providerStreams from './provider-streams/index.ts';
import type {
  AnthropicStreamEventLike,
  OpenAIChatChunkLike,
  OpenAIResponsesEventLike,
  ProviderStreamOptions,
  StreamedAssistant,
} from './provider-streams/index.ts';
import type { SessionLogRead } from './read-log.ts';
import { emptyWriterState, foldEvent, systemPromptSeq, toolResultNode } from './writer-state.ts';
import type { WriterState } from './writer-state.ts';
import { skipTrailer, takeBatch, type Queued, type WriterDraft } from './writer-queue.ts';

/**
 * Writes a well-formed session through a `HubClient`: turns and steps numbered correctly (continuing an existing
 * log), streamed chunks, assistant messages citing their chunks, tool calls with matching results, system prompt
 * changes by replacement. Misuse rejects with INVALID_STATE before anything is sent, so the log always passes
 * `validateLifecycle`.
 *
 * Batching: calls are queued in order and sent as appends of up to `maxBatchEvents` events that fit the client's
 * `maxFrameBytes`, one append in flight at a time, each with `expectedSeq` (this writer must be the session's only
 * writer) and an idempotency key (so reconnects never duplicate). When the hub commits an event of its own right
 * behind an append (the audit of `serve --secrets redact`: the ack's `trailerEvents`), the writer moves every seq
 * it assigned since past it, the queued calls' `sourceEventSeqs` and replace ranges too (`skipTrailer`), so
 * scanning never breaks its stream. Chunks stay separate events; they are only
 * grouped into appends. Each call's promise resolves with its committed event; you need not await each one, but
 * await `flush()` (or a later call) to see a failure. After a failure (e.g. SEQ_CONFLICT, TIMEOUT) the writer is
 * broken: every call rejects with that error; `attach` again to continue from what the hub holds. No promise the
 * writer returns or makes itself is ever reported unhandled (only misuse on a healthy writer rejects plainly).
 * `recover()` closes a turn that a crashed writer left open, exactly once.
 */
export class AgentWriter {
  readonly sessionId: string;
  readonly #client: HubClient;
  readonly #maxBatch: number;
  /** Bytes of an append frame of this writer besides its events (see `#nextBatch`). */
  readonly #frameOverhead: number;
  readonly #timeoutMs: number | undefined;
  readonly #state: WriterState;
  readonly #queue: Queued[] = [];
  #inFlight: Promise<void> | undefined;
  #scheduled = false;
  #failure: unknown;
  /** What `recover()` appends: the repair of the turn the attached log left open (empty when none was). */
  readonly #repair: readonly KnownEventDraft[];
  /** The idempotency key of that repair: the same for every writer attached to the same log (see `recover`). */
  readonly #repairKey: string;
  #recovery: Promise<SessionEvent[]> | undefined;
  /** The head + 1 of the log as attached. */
  readonly #attachedSeq: number;

  private constructor(client: HubClient, sessionId: string, log: SessionLogRead, options: AgentWriterOptions) {
    const { events, epoch } = log;
    this.#client = client;
    this.sessionId = sessionId;
    this.#maxBatch = Math.max(1, options.maxBatchEvents ?? 100);
    // The widest id and expectedSeq, a generated key (the writer gives none), no events; +4: the events array's
    // header grows from 1 byte (empty) to at most 5.
    const empty = encodeRequest({
      type: 'append',
      id: Number.MAX_SAFE_INTEGER,
      sessionId,
      events: [],
      expectedSeq: Number.MAX_SAFE_INTEGER,
      idempotencyKey: randomUuid(),
    });
    this.#frameOverhead = empty.byteLength + 4;
    this.#timeoutMs = options.timeoutMs;
    this.#state = emptyWriterState();
    for (const event of events) foldEvent(this.#state, event);
    this.#repair = this.#state.turnOpen ? repairInterrupted(events) : [];
    this.#attachedSeq = this.#state.nextSeq;
    this.#repairKey = `recover:${epoch ?? '-'}:${this.#state.turn}:${this.#state.nextSeq}`;
  }

  /**
   * A writer for `sessionId`, continuing its log: `options.events` if given, else the log of this client's open
   * subscription to the session (from seq 0) once live, else the log read through a short-lived subscription.
   */
  static async attach(client: HubClient, sessionId: string, options: AgentWriterOptions = {}): Promise<AgentWriter> {
    const timeoutMs =
      options.timeoutMs === undefined ? client.requestTimeoutMs : checkTimeoutMs('timeoutMs', options.timeoutMs);
    const log = options.events === undefined ? await readSessionLog(client, sessionId, timeoutMs) : options;
    return new AgentWriter(client, sessionId, { events: log.events ?? [], epoch: log.epoch }, options);
  }

  /** Number of the current (or last) turn; 0 before the first. */
  get turn(): number {
    return this.#state.turn;
  }
  /** Number of the current (or last) step of the current turn. */
  get step(): number {
    return this.#state.step;
  }
  get turnOpen(): boolean {
    return this.#state.turnOpen;
  }
  get stepOpen(): boolean {
    return this.#state.stepOpen;
  }
  /** Seq the next event will get. */
  get nextSeq(): number {
    return this.#state.nextSeq;
  }

  startTurn(): Promise<SessionEvent> {
    if (this.#state.turnOpen) return this.#misuse(`turn ${this.#state.turn} is still open`);
    return this.#write({ type: 'turn/start', data: { turn: this.#state.turn + 1 } });
  }

  /**
   * End the open turn (closing its open step). Unanswered tool calls get an error result first, unless the turn
   * `completed` — then it is misuse.
   */
  endTurn(reason: TurnEndReason | TurnEndReasonKind = 'completed'): Promise<SessionEvent> {
    const turnEndReason: TurnEndReason = typeof reason === 'string' ? { kind: reason } : reason;
    const { turnOpen, openCalls, turn } = this.#state;
    if (!turnOpen) return this.#misuse('no open turn to end');
    if (openCalls.size > 0 && turnEndReason.kind === 'completed') {
      return this.#misuse(
        `turn ${turn} cannot complete with unanswered tool calls: ${[...openCalls.keys()].join(', ')}`,
      );
    }
    // The events written on the caller's behalf: their failure is the writer's failure, which the `turn/end`
    // below (queued behind them) rejects with; their own promises are handled here, never left dangling.
    if (openCalls.size > 0) {
      if (!this.#state.stepOpen) handled(this.startStep());
      for (const callId of [...openCalls.keys()]) {
        handled(
          this.toolResult({ callId, content: `no result: the turn ended (${turnEndReason.kind})`, isError: true }),
        );
      }
    }
    if (this.#state.stepOpen) handled(this.endStep());
    return this.#write({ type: 'turn/end', data: { turn, reason: turnEndReason } });
  }

  startStep(): Promise<SessionEvent> {
    if (!this.#state.turnOpen) return this.#misuse('start a turn before a step');
    if (this.#state.stepOpen) return this.#misuse(`step ${this.#state.step} is still open`);
    return this.#write({ type: 'step/start', data: { turn: this.#state.turn, step: this.#state.step + 1 } });
  }

  endStep(): Promise<SessionEvent> {
    if (!this.#state.stepOpen) return this.#misuse('no open step to end');
    return this.#write({ type: 'step/end', data: { turn: this.#state.turn, step: this.#state.step } });
  }

  /** Record one streamed piece of the assistant's answer (`assistant/chunk`). */
  streamChunk(chunk: JsonValue): Promise<SessionEvent> {
    if (!this.#state.stepOpen) return this.#misuse('stream chunks inside an open step');
    return this.#write({ type: 'assistant/chunk', data: { ...this.#stepRef(), chunk } });
  }

  /** Commit the assistant message; the chunks streamed since the step's last message become its sources. */
  commitAssistantMessage(
    message: Omit<AssistantMessage, 'role'> & { readonly role?: 'assistant' },
    usage?: JsonValue,
  ): Promise<SessionEvent> {
    if (!this.#state.stepOpen) return this.#misuse('commit assistant messages inside an open step');
    const chunkSeqs = this.#state.chunkSeqs;
    const data = {
      ...this.#stepRef(),
      message: { ...message, role: 'assistant' } as AssistantMessage,
      ...(usage === undefined ? {} : { usage }),
    };
    return this.#write({
      type: 'assistant/message',
      data,
      ...(chunkSeqs.length === 0 ? {} : { sourceEventSeqs: [...chunkSeqs] }),
    });
  }

  toolCall(call: ToolCallInput): Promise<SessionEvent> {
    if (!this.#state.stepOpen) return this.#misuse('record tool calls inside an open step');
    if (this.#state.openCalls.has(call.callId)) return this.#misuse(`tool call ${call.callId} is already open`);
    const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
    return this.#write({
      type: 'tool/call',
      data: { ...this.#stepRef(), callId: call.callId, name: call.name, arguments: args },
    });
  }

  toolResult(result: ToolResultInput): Promise<SessionEvent> {
    if (!this.#state.stepOpen) return this.#misuse('record tool results inside an open step');
    const toolName = this.#state.openCalls.get(result.callId);
    if (toolName === undefined) return this.#misuse(`no open tool call ${result.callId} in this turn`);
    const message = {
      role: 'tool',
      toolCallId: result.callId,
      toolName,
      content: result.content,
      isError: result.isError ?? false,
    } as const;
    const extra: JsonObject = {
      ...(result.error === undefined ? {} : { error: result.error }),
      ...(result.meta === undefined ? {} : { meta: result.meta }),
    };
    return this.#write({ type: 'tool/result', data: { ...this.#stepRef(), message, ...extra } });
  }

  /**
   * Prune a tool output from the context without rewriting history: replace the current `tool/result` of
   * `callId` by one whose `message.content` is `content` (everything else stays the same).
   */
  pruneToolResult(callId: string, content: JsonValue): Promise<SessionEvent> {
    const node = toolResultNode(this.#state, callId);
    if (node === undefined) return this.#misuse(`no tool result for ${callId} on the surface`);
    const data = node.data as EventDataMap['tool/result'];
    return this.#write({
      type: 'tool/result',
      data: { ...data, message: { ...data.message, content } },
      surfaceOp: { op: 'replace', startSeq: node.seq, endSeq: node.seq },
      sourceEventSeqs: [node.seq],
    });
  }

  /** Set the system prompt: appended the first time, then changed by replacing the current system node. */
  setSystemPrompt(content: string): Promise<SessionEvent> {
    const current = systemPromptSeq(this.#state);
    if (current === undefined) return this.#write({ type: 'system/message', data: { content } });
    return this.#write({
      type: 'system/message',
      data: { content },
      surfaceOp: { op: 'replace', startSeq: current, endSeq: current },
      sourceEventSeqs: [current],
    });
  }

  userMessage(content: JsonValue): Promise<SessionEvent> {
    return this.#write({ type: 'user/message', data: { role: 'user', content } });
  }

  /** Log the request state (`request/header`) so every model request can be rebuilt. */
  requestHeader(
    header: { readonly config: JsonValue; readonly tools?: JsonValue },
    reason: 'initial' | 'resume' | 'change',
  ): Promise<SessionEvent> {
    return this.#write({ type: 'request/header', data: { header, reason } });
  }

  /** Append an extension event (any `<domain>/<name>` type outside the catalog), in order with the rest. */
  extension(type: string, data: JsonValue): Promise<SessionEvent> {
    if (isKnownType(type)) return this.#misuse(`${type} is a known type: use its own method`);
    return this.#write({ type, data });
  }

  /**
   * Close the turn that the attached log left open (its writer crashed mid-turn): append, as one atomic append,
   * an error `tool/result` for each unanswered call (in the open step, or a new one), `step/end`, then
   * `turn/end { reason: { kind: 'interrupted' } }` — the repair `repairInterrupted` computes. Resolves with those
   * committed events; with `[]` when the attached log had no open turn.
   *
   * Exactly once, even when several writers attached to the same log recover it at the same time: the append
   * carries `expectedSeq` and an idempotency key derived from the log (its epoch, the open turn and the head), so
   * the first commits and every other one is answered with that commit (resolving with the same events). A log
   * that moved on in between makes it fail with SEQ_CONFLICT (the writer is then broken: `attach` again). Call it
   * before writing anything else (afterwards it is INVALID_STATE); calling it again returns the same promise.
   */
  recover(): Promise<SessionEvent[]> {
    if (this.#recovery !== undefined) return this.#recovery;
    if (this.#failure !== undefined) return rejectedHandled(this.#failure);
    if (this.#repair.length === 0) return Promise.resolve([]);
    if (this.#state.nextSeq !== this.#attachedSeq || this.#inFlight !== undefined || this.#scheduled) {
      return this.#misuse('recover() repairs the log as attached: call it before writing anything else');
    }
    const drafts = this.#repair;
    for (const draft of drafts) foldEvent(this.#state, { ...draft, seq: this.#state.nextSeq });
    const options = {
      expectedSeq: this.#attachedSeq,
      idempotencyKey: this.#repairKey,
      ...(this.#timeoutMs === undefined ? {} : { timeoutMs: this.#timeoutMs }),
    };
    const recovery = this.#client
      .append(this.sessionId, drafts as readonly WriterDraft[], options)
      .then((events) => {
        skipTrailer(this.#queue, this.#state, trailerSeqsOf(events));
        return events;
      })
      .catch((error: unknown) => {
        this.#fail(error, []);
        throw error;
      });
    this.#recovery = handled(recovery);
    this.#inFlight = recovery
      .then(
        () => undefined,
        () => undefined,
      )
      .finally(() => {
        this.#inFlight = undefined;
        this.#pump();
      });
    return recovery;
  }

  /** Resolves when everything written so far is committed; rejects with the writer's failure. */
  flush(): Promise<void> {
    return handled(this.#drain());
  }

  async #drain(): Promise<void> {
    while (this.#queue.length > 0 || this.#inFlight !== undefined || this.#scheduled) {
      if (this.#failure !== undefined) break;
      await (this.#inFlight ?? Promise.resolve());
    }
    if (this.#failure !== undefined) throw this.#failure;
  }

  #stepRef(): { turn: number; step: number } {
    return { turn: this.#state.turn, step: this.#state.step };
  }

  /** INVALID_STATE; on a failed writer, its failure instead (every call after a failure rejects with it). */
  #misuse(message: string): Promise<never> {
    if (this.#failure !== undefined) return rejectedHandled(this.#failure);
    return Promise.reject(new HubClientError(ClientErrorCode.INVALID_STATE, message, { sessionId: this.sessionId }));
  }

  #write(writerDraft: WriterDraft): Promise<SessionEvent> {
    // Handled like the queued calls' promises: the failure already surfaced (and surfaces again from `flush()`).
    if (this.#failure !== undefined) return rejectedHandled(this.#failure);
    let draft: WriterDraft;
    try {
      draft = prepareDraft(writerDraft, 0) as WriterDraft; // the same draft, data copied and frozen
    } catch (error) {
      return Promise.reject(error); // data that is not lossless JSON (INVALID_JSON): this call only, nothing queued
    }
    const bytes = encodedDraft(draft).byteLength;
    const seq = this.#state.nextSeq;
    foldEvent(this.#state, { ...draft, seq });
    const promise = new Promise<SessionEvent>((resolve, reject) => {
      this.#queue.push({ draft, bytes, seq, resolve, reject });
    });
    this.#schedule();
    return handled(promise); // a failure is surfaced by flush() and by every later call
  }

  #schedule(): void {
    if (this.#scheduled || this.#inFlight !== undefined) return;
    this.#scheduled = true;
    queueMicrotask(() => {
      this.#scheduled = false;
      this.#pump();
    });
  }

  #pump(): void {
    if (this.#inFlight !== undefined || this.#queue.length === 0 || this.#failure !== undefined) return;
    const batch = this.#nextBatch();
    const expectedSeq = batch[0]!.seq;
    const options = { expectedSeq, ...(this.#timeoutMs === undefined ? {} : { timeoutMs: this.#timeoutMs }) };
    this.#inFlight = this.#client
      .append(
        this.sessionId,
        batch.map((item) => item.draft),
        options,
      )
      .then(
        (events) => {
          batch.forEach((item, index) => item.resolve(events[index]!));
          skipTrailer(this.#queue, this.#state, trailerSeqsOf(events));
        },
        (error: unknown) => this.#fail(error, batch),
      )
      .finally(() => {
        this.#inFlight = undefined;
        this.#pump();
      });
  }

  /** The next append: up to `maxBatchEvents` (or the hub's smaller `maxEventsPerAppend`) within `maxFrameBytes`. */
  #nextBatch(): Queued[] {
    const maxEvents = Math.min(this.#maxBatch, this.#client.maxEventsPerAppend ?? Number.POSITIVE_INFINITY);
    const { maxFrameBytes } = this.#client;
    return takeBatch(this.#queue, { maxEvents, frameOverhead: this.#frameOverhead, maxFrameBytes });
  }

  #fail(error: unknown, batch: readonly Queued[]): void {
    this.#failure = error;
    for (const item of [...batch, ...this.#queue.splice(0)]) item.reject(error);
  }

  // ---- Provider streams (client/provider-streams/): a model response streamed into the open step ----

  /**
   * Stream a Chat Completions response (`openai.chat.completions.create({ stream: true, ... })`, DeepSeek's too)
   * into the open step: coalesced `assistant/chunk`s, then the `assistant/message` citing them with the usage, and
   * a `tool/call` per call. Resolves with the message and the calls to run; a failed stream commits what arrived
   * (marked `interrupted`, no calls) and rejects with the stream's error. See docs/client.md, "Provider adapters".
   */
  streamOpenAIChat(
    stream: AsyncIterable<OpenAIChatChunkLike>,
    options?: ProviderStreamOptions,
  ): Promise<StreamedAssistant> {
    return providerStreams.streamOpenAIChat(this, stream, options);
  }

  /** `streamOpenAIChat` for a Responses API stream (`openai.responses.create({ stream: true, ... })`). */
  streamOpenAIResponses(
    stream: AsyncIterable<OpenAIResponsesEventLike>,
    options?: ProviderStreamOptions,
  ): Promise<StreamedAssistant> {
    return providerStreams.streamOpenAIResponses(this, stream, options);
  }

  /** `streamOpenAIChat` for a Messages API stream (`anthropic.messages.create({ stream: true, ... })`). */
  streamAnthropic(
    stream: AsyncIterable<AnthropicStreamEventLike>,
    options?: ProviderStreamOptions,
  ): Promise<StreamedAssistant> {
    return providerStreams.streamAnthropic(this, stream, options);
  }
}
