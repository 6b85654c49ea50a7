import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../shared/index.ts';
import {
  MessageProjector,
  PROJECTOR_FORMAT_VERSION,
  Session,
  SessionLogError,
  deriveMessages,
} from '../../shared/index.ts';
import { decodeFrame, encodeMsgpackValue } from '../../shared/codec.ts';
import { thrown } from '../helpers/thrown.ts';
import { buildLog, logCommands } from './support/log-arbitrary.ts';

const runs = { numRuns: 150 };

function projectorAt(events: readonly SessionEvent[], length: number): MessageProjector {
  const projector = new MessageProjector();
  for (const event of events.slice(0, length)) projector.advance(event);
  return projector;
}

describe('MessageProjector state (export / restore)', () => {
  it('a restored state equals deriveMessages of its prefix, and stays exact under every later event', () => {
    fc.assert(
      fc.property(logCommands, logCommands, fc.double({ min: 0, max: 1, noNaN: true }), (before, after, cut) => {
        const session = new Session({ clock: () => 1 });
        buildLog(before, session);
        // The later commands aim replaces and prunes at any surface node, those before the cut included.
        buildLog(after, session);
        const events = session.events;
        const length = Math.floor(cut * events.length);
        const state = projectorAt(events, length).exportState();
        expect(state.formatVersion).toBe(PROJECTOR_FORMAT_VERSION);
        expect(state.length).toBe(length);
        // Through msgpack, as the store and the wire carry it.
        const restored = MessageProjector.fromState(decodeFrame(encodeMsgpackValue(state)));
        expect(restored.length).toBe(length);
        expect(restored.messages).toEqual(deriveMessages(events.slice(0, length)));
        for (const event of events.slice(length)) {
          restored.apply(event);
          expect(restored.messages).toEqual(deriveMessages(events.slice(0, event.seq + 1)));
        }
        // Exporting the restored projector gives the state of the whole log, as a fresh projector does.
        expect(restored.exportState()).toEqual(projectorAt(events, events.length).exportState());
      }),
      runs,
    );
  });

  it('exportState is a copy: later events do not change it', () => {
    const session = new Session({ clock: () => 1 });
    session.append({ type: 'user/message', data: { role: 'user', content: 'a' } });
    const projector = projectorAt(session.events, 1);
    const state = projector.exportState();
    session.append({ type: 'user/message', data: { role: 'user', content: 'b' } });
    projector.apply(session.events[1]!);
    expect(state.messages).toHaveLength(1);
    expect(state.surface).toEqual([0]);
  });

  it('restored messages are deep-frozen', () => {
    const state = {
      formatVersion: PROJECTOR_FORMAT_VERSION,
      length: 1,
      surface: [0],
      silent: [],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    };
    const message = MessageProjector.fromState(state).messages[0] as unknown as { content: { text: string }[] };
    expect(Object.isFrozen(message)).toBe(true);
    expect(Object.isFrozen(message.content[0])).toBe(true);
  });

  const valid = {
    formatVersion: PROJECTOR_FORMAT_VERSION,
    length: 3,
    surface: [0, 2],
    silent: [1],
    messages: [{ role: 'user', content: 'x' }],
  };
  const malformed: [string, unknown, string][] = [
    ['not an object', [], 'state'],
    ['another format version', { ...valid, formatVersion: PROJECTOR_FORMAT_VERSION + 1 }, 'state.formatVersion'],
    ['a negative length', { ...valid, length: -1 }, 'state.length'],
    ['a surface seq at or past length', { ...valid, surface: [0, 3] }, 'state.surface[1]'],
    ['a seq twice on the surface', { ...valid, surface: [2, 2] }, 'state.surface'],
    ['silent indices out of order', { ...valid, surface: [0, 1, 2], silent: [1, 0] }, 'state.silent[1]'],
    ['a silent index past the surface', { ...valid, silent: [2] }, 'state.silent[0]'],
    ['too many messages', { ...valid, messages: [{ role: 'user' }, { role: 'user' }] }, 'state.messages'],
    ['a message without a role', { ...valid, messages: [{ content: 'x' }] }, 'state.messages[0].role'],
    [
      'a message that is not lossless JSON',
      { ...valid, messages: [{ role: 'user', content: Number.NaN }] },
      'state.messages[0].content',
    ],
  ];
  it.each(malformed)('refuses %s with INVALID_SNAPSHOT and its path', (_name, state, path) => {
    const error = thrown(() => MessageProjector.fromState(state));
    expect(error).toBeInstanceOf(SessionLogError);
    expect(error).toMatchObject({ path });
    expect((error as SessionLogError).code).toBe(path.includes('content') ? 'INVALID_JSON' : 'INVALID_SNAPSHOT');
  });

  it('accepts the well-formed state those variants spoil', () => {
    expect(MessageProjector.fromState(valid).messages).toEqual([{ role: 'user', content: 'x' }]);
  });
});
