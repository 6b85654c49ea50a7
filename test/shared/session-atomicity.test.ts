import { describe, expect, it } from 'vitest';
import type { EventDraft, SessionEvent } from '../../shared/index.ts';
import { caught, drafts, replace, sessionOf } from './support/session-builders.ts';

const rejected: readonly [string, EventDraft][] = [
  ['bad JSON', { type: 'x/y', data: { n: NaN } }],
  ['bad shape', { type: 'turn/start', data: { turn: 0 } }],
  ['surfaceOp on a non-surface type', { ...drafts.turnStart(2), surfaceOp: 'append' }],
  ['a replace range off the surface', drafts.user('x', replace(1, 1, [1]))],
  ['a missing source', drafts.user('x', replace(2, 3, [2]))],
  ['a tool-result prune that changes isError', drafts.result('c1', 'x', replace(4, 4, [4]))],
  ['a system prompt replaced by a user message', drafts.user('x', replace(0, 0, [0]))],
];

describe('a rejected append leaves the session untouched', () => {
  it.each(rejected)('after %s: log, derived messages and subscribers are as they were', (_name, draft) => {
    const session = sessionOf(
      drafts.system('sys'),
      drafts.turnStart(),
      drafts.user('hi'),
      drafts.assistant('ok'),
      drafts.result('c1', 'out', { sourceEventSeqs: [3] }),
    );
    if (draft.type === 'tool/result') {
      const data = draft.data as { message: object };
      draft = { ...draft, data: { ...data, message: { ...data.message, isError: true } } };
    }
    const seen: SessionEvent[] = [];
    session.subscribe((event) => seen.push(event));
    const eventsBefore = session.events;
    const messagesBefore = session.deriveMessages();
    const plainBefore = JSON.stringify([eventsBefore, messagesBefore]);

    const error = caught(() => session.append(draft));
    expect(error.seq).toBe(5);

    expect(session.length).toBe(5);
    expect(session.events).toBe(eventsBefore);
    expect(session.deriveMessages()).toBe(messagesBefore);
    expect(JSON.stringify([session.events, session.deriveMessages()])).toBe(plainBefore);
    expect(seen).toEqual([]);
    // The surface is intact too: the next valid append behaves as if the rejected one never happened.
    const next = session.append(drafts.system('new sys', replace(0, 0, [0])));
    expect(next.seq).toBe(5);
    expect(seen).toEqual([next]);
    expect(session.deriveMessages().map((message) => message.content)).toEqual(['new sys', 'hi', 'ok', 'out']);
  });

  it('a rejected batch in check() or applyCommitted() leaves nothing behind either', () => {
    const session = sessionOf(drafts.user('a'));
    const seen: SessionEvent[] = [];
    session.subscribe((event) => seen.push(event));
    expect(caught(() => session.check([drafts.user('b'), drafts.user('c', replace(1, 1, [0]))])).seq).toBe(2);
    const committed = [
      { seq: 1, type: 'user/message', time: 1, data: { role: 'user', content: 'b' }, surfaceOp: 'append' },
      { seq: 2, type: 'user/message', time: 1, data: { role: 'user', content: 'c' } },
    ] as unknown as SessionEvent[];
    expect(caught(() => session.applyCommitted(committed))).toMatchObject({ code: 'INVALID_LOG', seq: 2 });
    expect(session.length).toBe(1);
    expect(seen).toEqual([]);
    // seq 1 was never taken: a replacement of it is still off the surface, and seq 0 is still on it.
    expect(caught(() => session.append(drafts.user('d', replace(1, 1, [1])))).code).toBe('SURFACE_VIOLATION');
    session.append(drafts.user('e', replace(0, 0, [0])));
    expect(session.deriveMessages()).toEqual([{ role: 'user', content: 'e' }]);
  });
});
