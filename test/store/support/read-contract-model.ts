// The reference model of the read-contract property (test/store/read-contract-*.test.ts): what every session of a
// run holds, as the test's own operations made it (appends, forks, redactions), independent of any store. A fork
// holds its own events and names its parent and fork seq, so a redaction of a parent's prefix shows in its forks as
// it does in the stores. A seq a redaction reported `cold` (kept only in the archive) may or may not have been
// rewritten (docs/storage.md: cold seqs are reported, not changed; a cold-tier rewrite may change that): the model
// keeps both bodies and accepts either, never a third one.
import { expect } from 'vitest';
import type { JsonValue, SessionEvent, ValidatedDraft } from '../../../shared/index.ts';
import { jsonEquals, redactEventData } from '../../../shared/index.ts';

/** An event of the model: no time (the store assigns it); `alt` the data it may hold instead (a cold redaction). */
export interface ModelEvent {
  readonly seq: number;
  readonly type: string;
  data: JsonValue;
  alt?: JsonValue;
  readonly surfaceOp?: SessionEvent['surfaceOp'];
  readonly sourceEventSeqs?: readonly number[];
}

export interface ModelSession {
  readonly id: string;
  readonly parent?: { readonly id: string; readonly forkSeq: number };
  /** The session's own first seq: 0, or a fork's `forkSeq + 1`. */
  readonly ownFirst: number;
  readonly own: ModelEvent[];
}

/** What a reader compares: an event without its time. */
export interface EventFacts {
  readonly seq: number;
  readonly type: string;
  readonly data: unknown;
  readonly surfaceOp?: unknown;
  readonly sourceEventSeqs?: readonly number[];
}

export function factsOf(event: SessionEvent | ModelEvent): EventFacts {
  return {
    seq: event.seq,
    type: event.type,
    data: event.data,
    ...(event.surfaceOp === undefined ? {} : { surfaceOp: event.surfaceOp }),
    ...(event.sourceEventSeqs === undefined ? {} : { sourceEventSeqs: event.sourceEventSeqs }),
  };
}

/** A validated draft of an event (for a commit or a fork's repair). */
export function draftOf(event: SessionEvent): ValidatedDraft {
  return {
    type: event.type,
    data: event.data as JsonValue,
    ...(event.surfaceOp === undefined ? {} : { surfaceOp: event.surfaceOp }),
    ...(event.sourceEventSeqs === undefined ? {} : { sourceEventSeqs: event.sourceEventSeqs }),
  };
}

export class LogModel {
  readonly sessions = new Map<string, ModelSession>();

  add(session: ModelSession): void {
    this.sessions.set(session.id, session);
  }

  get(id: string): ModelSession {
    const session = this.sessions.get(id);
    if (session === undefined) throw new Error(`no model of ${id}`);
    return session;
  }

  /** The whole log of a session: its parent's prefix (recursively), then its own events. */
  log(id: string): ModelEvent[] {
    const session = this.get(id);
    const prefix = session.parent === undefined ? [] : this.log(session.parent.id).slice(0, session.parent.forkSeq + 1);
    return [...prefix, ...session.own];
  }

  headSeq(id: string): number {
    const session = this.get(id);
    return session.ownFirst + session.own.length - 1;
  }

  /** Appends committed events (their seqs must continue the session). */
  appendCommitted(id: string, events: readonly SessionEvent[]): void {
    const session = this.get(id);
    for (const event of events) {
      expect(event.seq).toBe(this.headSeq(id) + 1);
      session.own.push({ ...factsOf(event), data: event.data as JsonValue } as ModelEvent);
    }
  }

  /** The model event of one of the session's own seqs. */
  own(id: string, seq: number): ModelEvent {
    const session = this.get(id);
    const event = session.own[seq - session.ownFirst];
    if (event === undefined) throw new Error(`${id} holds no own seq ${seq}`);
    return event;
  }

  /** A redaction changed this own seq: it holds its placeholder now, whatever it held before. */
  redacted(id: string, seq: number): void {
    const event = this.own(id, seq);
    event.data = redactEventData(event.type, event.data);
    delete event.alt;
  }

  /** A redaction reported this seq cold: it holds its body or its placeholder. */
  maybeRedacted(id: string, seq: number): void {
    const event = this.own(id, seq);
    const placeholder = redactEventData(event.type, event.alt ?? event.data);
    if (!jsonEquals(placeholder, event.data)) event.alt = placeholder;
  }

  /**
   * Checks a reader's events (seqs `from`.. to the head) against the model and returns the model log with each
   * undecided body resolved to the one the reader saw: the reference the other readers of the same moment must
   * equal exactly.
   */
  resolve(id: string, events: readonly SessionEvent[], from = 0): EventFacts[] {
    const log = this.log(id);
    const seen = events.map(factsOf);
    expect(seen.map((event) => event.seq)).toEqual(log.slice(from).map((event) => event.seq));
    const resolved = log.map((event) => factsOf(event));
    seen.forEach((got, index) => {
      const want = log[from + index]!;
      const context = `${id} seq ${want.seq}`;
      if (want.alt !== undefined && jsonEquals(got.data as JsonValue, want.alt)) {
        resolved[from + index] = { ...resolved[from + index]!, data: want.alt };
      }
      expect(got, context).toStrictEqual(resolved[from + index]);
    });
    return resolved;
  }
}
