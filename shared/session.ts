import { SessionLogError } from './errors.ts';
import type { DerivedMessage, EventDraft, SessionEvent, ValidatedDraft } from './events.ts';
import { isNonNegativeSafeInteger } from './check-helpers.ts';
import { describeValue } from './describe-value.ts';
import { returnedPromise } from './listener-result.ts';
import { LogValidator, toEvent } from './log-validator.ts';
import { MessageProjector } from './message-projector.ts';

/**
 * Called with each committed event, after the commit. It may be `async`: a promise it returns is not awaited, and
 * its rejection goes to `onListenerError` like a throw.
 */
export type SessionListener = (event: SessionEvent) => void;

export interface SessionOptions {
  /** Commit time source, epoch milliseconds (default `Date.now`). Must return a non-negative safe integer. */
  readonly clock?: () => number;
  /**
   * Receives an error thrown by a listener, or the rejection of a promise it returned (the append and the other
   * listeners go on regardless). Default: `console.error`.
   */
  readonly onListenerError?: (error: unknown, event: SessionEvent) => void;
}

function reportListenerError(error: unknown, event: SessionEvent): void {
  console.error(`session listener failed on event ${event.seq} (${event.type}):`, error);
}

/**
 * An append-only session log: the one source of truth of an agent's history. Every append is checked (envelope,
 * lossless JSON, the known types' data shapes, the surface rules) and either commits completely or changes
 * nothing. The model-visible messages are derived from the log incrementally.
 */
export class Session {
  readonly #events: SessionEvent[] = [];
  readonly #validator = new LogValidator();
  readonly #projector = new MessageProjector();
  readonly #clock: () => number;
  readonly #onListenerError: (error: unknown, event: SessionEvent) => void;
  #listeners: readonly SessionListener[] = [];
  #notifying = false;
  #eventsSnapshot: readonly SessionEvent[] | undefined;
  #messagesSnapshot: readonly DerivedMessage[] | undefined;

  constructor(options: SessionOptions = {}) {
    this.#clock = options.clock ?? Date.now;
    this.#onListenerError = options.onListenerError ?? reportListenerError;
  }

  /**
   * Rebuilds a session from stored events, re-checking everything (`seq === index`, type, time, lossless data,
   * shapes, surface rules folded event by event).
   * @throws SessionLogError `INVALID_LOG` with `seq` of the first bad event and the underlying error as `cause`.
   */
  static fromLog(events: readonly SessionEvent[], options: SessionOptions = {}): Session {
    const session = new Session(options);
    session.#commit(session.#validator.checkStored(events, true));
    return session;
  }

  /** Number of events (= the seq the next event gets). */
  get length(): number {
    return this.#events.length;
  }

  /** The event at `seq`, or undefined when there is none. */
  eventAt(seq: number): SessionEvent | undefined {
    return this.#events[seq];
  }

  /** A frozen snapshot of the log; the same array until the next append (never copied per read). */
  get events(): readonly SessionEvent[] {
    this.#eventsSnapshot ??= Object.freeze(this.#events.slice());
    return this.#eventsSnapshot;
  }

  /**
   * Validates a batch as if appended now at seqs `length`.. (each draft sees the ones before it) without changing
   * the session. Returns the normalized frozen drafts (`surfaceOp` defaulted to `'append'` on surface types).
   * @throws SessionLogError with `seq` = the seq the bad draft would have had.
   */
  check(drafts: readonly EventDraft[]): readonly ValidatedDraft[] {
    return Object.freeze(this.#validator.checkDrafts(drafts, false));
  }

  /**
   * Appends one event: validates it, assigns `seq` and `time`, commits, then notifies listeners.
   * A rejected draft throws `SessionLogError` and leaves the session (log, surface, messages, listeners) untouched.
   */
  append(draft: EventDraft): SessionEvent {
    this.#refuseReentry();
    const time = this.#clock();
    if (!isNonNegativeSafeInteger(time)) {
      throw new SessionLogError(
        'INVALID_EVENT',
        `clock returned ${describeValue(time)}, not a non-negative safe integer`,
        {
          seq: this.length,
        },
      );
    }
    const [validated] = this.#validator.checkDrafts([draft], true);
    const event = toEvent(validated!, this.#events.length, time);
    this.#commit([event]);
    return event;
  }

  /**
   * Appends events committed elsewhere (e.g. read back from the store, possibly written by another hub node):
   * `seq` must continue the log, `time` is kept. Validated like `fromLog`, all or nothing; listeners are notified
   * of each event after the whole batch is in.
   * @throws SessionLogError `INVALID_LOG` (with `seq`) or `REENTRANT_APPEND`.
   */
  applyCommitted(events: readonly SessionEvent[]): readonly SessionEvent[] {
    this.#refuseReentry();
    const committed = this.#validator.checkStored(events, true);
    this.#commit(committed);
    return committed;
  }

  /**
   * Appends events built from the drafts `check` returned at this length (`toEvent(draft, seq, time)`), e.g. once
   * the store committed them: only `seq`, `time` and the surface rules are checked again, not the content. Listeners
   * are notified as for `applyCommitted`. Anything else must go through `applyCommitted`.
   * @throws SessionLogError `INVALID_LOG` (with `seq`) or `REENTRANT_APPEND`.
   */
  applyChecked(events: readonly SessionEvent[]): void {
    this.#refuseReentry();
    this.#commit(this.#validator.commitChecked(events));
  }

  /** Registers a listener for committed events; returns an idempotent unsubscribe function. */
  subscribe(listener: SessionListener): () => void {
    const entry: SessionListener = (event) => listener(event);
    this.#listeners = [...this.#listeners, entry];
    return () => {
      this.#listeners = this.#listeners.filter((item) => item !== entry);
    };
  }

  /**
   * The messages the model sees, derived incrementally. The returned array is frozen and never changes; it is the
   * same array until an event changes the messages.
   */
  deriveMessages(): readonly DerivedMessage[] {
    this.#messagesSnapshot ??= Object.freeze(this.#projector.messages.slice());
    return this.#messagesSnapshot;
  }

  #refuseReentry(): void {
    if (this.#notifying) {
      throw new SessionLogError('REENTRANT_APPEND', 'append from inside a session listener is not allowed', {
        seq: this.length,
      });
    }
  }

  #commit(events: readonly SessionEvent[]): void {
    if (events.length === 0) return;
    for (const event of events) {
      this.#events.push(event);
      if (this.#projector.advance(event)) this.#messagesSnapshot = undefined;
    }
    this.#eventsSnapshot = undefined;
    this.#notify(events);
  }

  #notify(events: readonly SessionEvent[]): void {
    const listeners = this.#listeners;
    if (listeners.length === 0) return;
    this.#notifying = true;
    try {
      for (const event of events) {
        for (const listener of listeners) {
          try {
            returnedPromise(listener(event))?.then(undefined, (error: unknown) => this.#onListenerError(error, event));
          } catch (error) {
            this.#onListenerError(error, event);
          }
        }
      }
    } finally {
      this.#notifying = false;
    }
  }
}
