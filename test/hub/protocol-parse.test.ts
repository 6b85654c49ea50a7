import { describe, expect, it } from 'vitest';
import { parseClientMessage, parseServerMessage, ProtocolParseError } from '../../shared/protocol-parse.ts';

function parseError(value: unknown): ProtocolParseError {
  try {
    parseClientMessage(value);
  } catch (error) {
    if (error instanceof ProtocolParseError) return error;
    throw error;
  }
  throw new Error('expected a ProtocolParseError');
}

describe('parseClientMessage', () => {
  it('accepts every client message and drops unknown fields', () => {
    expect(parseClientMessage({ type: 'hello', id: 0, versions: [1, 2], extra: true })).toEqual({
      type: 'hello',
      id: 0,
      versions: [1, 2],
    });
    expect(parseClientMessage({ type: 'subscribe', id: 1, sessionId: 's', fromSeq: 3, epoch: 'e' })).toEqual({
      type: 'subscribe',
      id: 1,
      sessionId: 's',
      fromSeq: 3,
      epoch: 'e',
    });
    expect(parseClientMessage({ type: 'unsubscribe', id: 2, sessionId: 's' })).toEqual({
      type: 'unsubscribe',
      id: 2,
      sessionId: 's',
    });
    expect(
      parseClientMessage({
        type: 'append',
        id: 3,
        sessionId: 's',
        events: [{ type: 'user/message', data: { role: 'user', content: 'hi' }, surfaceOp: 'append' }],
        expectedSeq: 0,
        idempotencyKey: 'k',
      }),
    ).toEqual({
      type: 'append',
      id: 3,
      sessionId: 's',
      events: [{ type: 'user/message', data: { role: 'user', content: 'hi' }, surfaceOp: 'append' }],
      expectedSeq: 0,
      idempotencyKey: 'k',
    });
    expect(parseClientMessage({ type: 'ping', id: 4 })).toEqual({ type: 'ping', id: 4 });
    expect(parseClientMessage({ type: 'auth', id: 5, token: 't' })).toEqual({ type: 'auth', id: 5, token: 't' });
  });

  it('names the offending field and keeps a readable id', () => {
    expect(parseError(null).message).toMatch(/must be an object/);
    expect(parseError([1]).message).toMatch(/must be an object/);
    expect(parseError({ id: 1 }).message).toMatch(/"type"/);
    expect(parseError({ id: 1, type: 'nope' }).message).toMatch(/unknown message type "nope"/);
    expect(parseError({ type: 'ping', id: -1 }).message).toMatch(/"id"/);
    expect(parseError({ type: 'ping', id: 1.5 }).message).toMatch(/"id"/);
    const noSession = parseError({ type: 'subscribe', id: 9 });
    expect(noSession.message).toMatch(/"sessionId"/);
    expect(noSession.id).toBe(9);
    expect(noSession.code).toBe('BAD_REQUEST');
    expect(parseError({ type: 'subscribe', id: 9, sessionId: '' }).message).toMatch(/must not be empty/);
    expect(parseError({ type: 'subscribe', id: 9, sessionId: 's', fromSeq: '1' }).message).toMatch(/"fromSeq"/);
    expect(parseError({ type: 'append', id: 9, sessionId: 's', events: [] }).message).toMatch(/at least one/);
    expect(parseError({ type: 'append', id: 9, sessionId: 's', events: {} }).message).toMatch(/"events"/);
    expect(parseError({ type: 'append', id: 9, sessionId: 's', events: [{ data: 1 }] }).message).toMatch(
      /events\[0\]\.type/,
    );
    expect(parseError({ type: 'hello', id: 9, versions: ['1'] }).message).toMatch(/"versions"/);
  });

  it('refuses idempotency keys and `after` that are empty, too long or not well-formed Unicode', () => {
    const append = { type: 'append', id: 9, sessionId: 's', events: [{ type: 'x/y', data: 1 }] };
    for (const field of ['idempotencyKey', 'after']) {
      expect(parseError({ ...append, [field]: '' }).message).toMatch(/must not be empty/);
      expect(parseError({ ...append, [field]: 'k'.repeat(257) }).message).toMatch(/longer than 256/);
      // A lone surrogate becomes U+FFFD in UTF-8 (Redis): two such keys would collide there.
      for (const lone of ['\ud800', 'a\udc00', 'k\ud83d']) {
        const error = parseError({ ...append, [field]: lone });
        expect(error.message).toMatch(new RegExp(`"${field}" must be well-formed Unicode`));
        expect(error.code).toBe('BAD_REQUEST');
      }
      expect(parseClientMessage({ ...append, [field]: 'k😀'.repeat(3) })).toMatchObject({ [field]: 'k😀'.repeat(3) });
    }
  });

  it('does not read inherited fields', () => {
    const inherited = Object.create({ type: 'ping', id: 1 }) as object;
    expect(parseError(inherited).message).toMatch(/"type"/);
  });
});

describe('parseServerMessage', () => {
  it('reads welcome with or without the announced limits, and refuses malformed limits', () => {
    const welcome = { type: 'welcome', id: 1, version: 1, node: 'n1' };
    expect(parseServerMessage(welcome)).toEqual(welcome);
    const limits = { maxFrameBytes: 1024, maxEventsPerAppend: 10, maxEventBytes: 512 };
    expect(parseServerMessage({ ...welcome, limits: { ...limits, future: true } })).toEqual({ ...welcome, limits });
    for (const bad of [5, { ...limits, maxFrameBytes: 0 }, { ...limits, maxEventBytes: 1.5 }, { maxFrameBytes: 1 }]) {
      expect(() => parseServerMessage({ ...welcome, limits: bad })).toThrow(ProtocolParseError);
    }
  });

  it('accepts server messages and rejects wrong shapes', () => {
    const ack = {
      type: 'ack',
      id: 1,
      sessionId: 's',
      epoch: 'e',
      firstSeq: 0,
      lastSeq: 1,
      time: 5,
      duplicate: false,
    };
    expect(parseServerMessage(ack)).toEqual(ack);
    // The seqs a trailer took behind the append (a scan's audit): 1 to PROTOCOL_BOUNDS.trailerEvents, when present.
    expect(parseServerMessage({ ...ack, trailerEvents: 1 })).toEqual({ ...ack, trailerEvents: 1 });
    for (const trailerEvents of [0, 17, -1, 1.5, '1']) {
      expect(() => parseServerMessage({ ...ack, trailerEvents })).toThrow(/trailerEvents/);
    }
    expect(parseServerMessage({ type: 'live', sessionId: 's', headSeq: -1 })).toEqual({
      type: 'live',
      sessionId: 's',
      headSeq: -1,
    });
    const error = { type: 'error', code: 'SEQ_CONFLICT', message: 'm', id: 3, details: { headSeq: 4 } };
    expect(parseServerMessage(error)).toEqual(error);
    expect(() => parseServerMessage({ type: 'events', sessionId: 's', events: [{ seq: 0 }] })).toThrow(
      ProtocolParseError,
    );
    expect(() => parseServerMessage({ type: 'ack', id: 1 })).toThrow(/"sessionId"/);
    expect(() => parseServerMessage({ type: 'error', code: 'X', message: 'm', details: { a: {} } })).toThrow(
      /details\.a/,
    );
  });
});
