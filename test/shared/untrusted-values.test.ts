import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { EventDraft, SessionEvent } from '../../shared/index.ts';
import { Session, SessionLogError } from '../../shared/index.ts';
import { ProtocolParseError, parseClientMessage } from '../../shared/protocol-parse.ts';
import { drafts } from './support/session-builders.ts';

/** Any JS value, including the ones `JSON.stringify` and template literals throw on. */
const hostile: fc.Arbitrary<unknown> = fc.oneof(
  fc.anything({ withBigInt: true, withMap: true, withSet: true, withNullPrototype: true, withSparseArray: true }),
  fc.bigInt(),
  fc.constant(Symbol('s')),
  fc.constant(() => 1),
  fc.constant({ toJSON: () => 1n }),
);

/** A SessionLogError, or the non-SessionLogError that was thrown (the property fails on it). */
function outcome(action: () => unknown): unknown {
  try {
    action();
    return 'accepted';
  } catch (error) {
    return error instanceof SessionLogError ? 'rejected' : error;
  }
}

describe('untrusted values in drafts and stored events', () => {
  it('a bigint type or seq is rejected with SessionLogError naming it, not a TypeError', () => {
    const typeError = outcome(() => new Session().append({ type: 1n as unknown as string, data: {} }));
    expect(typeError).toBe('rejected');
    expect(() => new Session().append({ type: 1n as unknown as string, data: {} })).toThrow(/got 1n/);
    const seqError = outcome(() =>
      Session.fromLog([{ seq: 1n, type: 'a/b', time: 0, data: 1 } as unknown as SessionEvent]),
    );
    expect(seqError).toBe('rejected');
    expect(() => Session.fromLog([{ seq: 1n, type: 'a/b', time: 0, data: 1 } as unknown as SessionEvent])).toThrow(
      /got 1n/,
    );
    const cycle: Record<string, unknown> = {};
    cycle['self'] = cycle;
    expect(outcome(() => new Session().append({ type: cycle as unknown as string, data: {} }))).toBe('rejected');
  });

  it('a clock returning a symbol is rejected with SessionLogError', () => {
    const session = new Session({ clock: () => Symbol('t') as unknown as number });
    expect(outcome(() => session.append(drafts.turnStart()))).toBe('rejected');
  });

  it('any value in any envelope field is accepted or rejected with SessionLogError, never another error', () => {
    const field = fc.constantFrom('seq', 'type', 'time', 'data', 'surfaceOp', 'sourceEventSeqs');
    fc.assert(
      fc.property(field, hostile, (name, value) => {
        const draft = { type: 'user/message', data: { role: 'user', content: 'hi' }, [name]: value };
        const stored = { seq: 0, time: 0, surfaceOp: 'append', ...draft };
        expect(outcome(() => new Session().append(draft as EventDraft))).not.toBeInstanceOf(Error);
        expect(outcome(() => Session.fromLog([stored as unknown as SessionEvent]))).not.toBeInstanceOf(Error);
      }),
      { numRuns: 300 },
    );
  });

  it('a protocol message with any type value is rejected with ProtocolParseError', () => {
    fc.assert(
      fc.property(hostile, (type) => {
        fc.pre(typeof type !== 'string' || !/^[a-z]+$/.test(type));
        expect(() => parseClientMessage({ type, id: 1 })).toThrow(ProtocolParseError);
      }),
    );
    expect(() => parseClientMessage({ type: 'x'.repeat(10_000), id: 1 })).toThrow(/^.{0,200}$/);
  });
});
