import { describe, expect, it } from 'vitest';
import { MessageProjector, PROJECTOR_FORMAT_VERSION } from '../../shared/index.ts';
import { parseClientMessage, parseServerMessage, ProtocolParseError } from '../../shared/protocol-parse.ts';
import { thrown } from '../helpers/thrown.ts';

const frame = (state: unknown) => ({ type: 'snapshot', sessionId: 's', epoch: 'e', seq: 0, state });

describe('the snapshot frame and subscribe snapshot: true on the wire', () => {
  it('parses a snapshot with a checked, frozen state, and one that keeps the client copy (state null)', () => {
    const state = {
      formatVersion: PROJECTOR_FORMAT_VERSION,
      length: 1,
      surface: [0],
      silent: [],
      messages: [{ role: 'user', content: 'x' }],
    };
    const parsed = parseServerMessage(frame(state));
    expect(parsed).toEqual(frame(state));
    if (parsed.type !== 'snapshot' || parsed.state === null) throw new Error('unreachable');
    expect(Object.isFrozen(parsed.state.messages[0])).toBe(true);
    expect(MessageProjector.fromState(parsed.state).messages).toEqual([{ role: 'user', content: 'x' }]);
    expect(parseServerMessage(frame(null))).toEqual(frame(null));
  });

  it('refuses a malformed state with a ProtocolParseError naming it, never another error', () => {
    for (const state of [
      undefined,
      'x',
      { formatVersion: 99 },
      { formatVersion: PROJECTOR_FORMAT_VERSION, length: 1, surface: [5], silent: [], messages: [] },
    ]) {
      const error = thrown(() => parseServerMessage(frame(state)));
      expect(error).toBeInstanceOf(ProtocolParseError);
      expect((error as Error).message).toMatch(/snapshot\.state/);
    }
    expect(thrown(() => parseServerMessage({ ...frame(null), seq: -2 }))).toBeInstanceOf(ProtocolParseError);
  });

  it('subscribe takes snapshot: a boolean only', () => {
    expect(parseClientMessage({ type: 'subscribe', id: 1, sessionId: 's', snapshot: true })).toMatchObject({
      snapshot: true,
    });
    expect(parseClientMessage({ type: 'subscribe', id: 1, sessionId: 's' })).not.toHaveProperty('snapshot');
    expect(
      thrown(() => parseClientMessage({ type: 'subscribe', id: 1, sessionId: 's', snapshot: 'yes' })),
    ).toBeInstanceOf(ProtocolParseError);
  });
});

describe('a declined snapshot frame', () => {
  const empty = new MessageProjector().exportState();
  const declined = { type: 'snapshot', sessionId: 's', epoch: 'e', seq: -1, state: empty, declined: 'TOO_LARGE' };

  it('parses TOO_LARGE on the empty projection at seq -1', () => {
    expect(parseServerMessage(declined)).toEqual(declined);
  });

  it('refuses another reason, another seq, or no state', () => {
    for (const bad of [
      { ...declined, declined: 'BUSY' },
      { ...declined, declined: true },
      { ...declined, seq: 4 },
      { ...declined, state: null },
    ]) {
      expect(thrown(() => parseServerMessage(bad))).toBeInstanceOf(ProtocolParseError);
    }
  });
});
