import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../shared/index.ts';
import { Session } from '../../shared/index.ts';
import { caught, drafts, sessionOf } from './support/session-builders.ts';

describe('Session reading', () => {
  it('assigns seq from 0 and time from the clock, and returns the committed frozen event', () => {
    const times = [10, 20];
    const session = new Session({ clock: () => times.shift()! });
    const first = session.append(drafts.turnStart());
    const second = session.append(drafts.user('hi'));
    expect(first).toEqual({ seq: 0, type: 'turn/start', time: 10, data: { turn: 1 } });
    expect([second.seq, second.time, second.surfaceOp]).toEqual([1, 20, 'append']);
    expect(Object.isFrozen(first) && Object.isFrozen(first.data)).toBe(true);
    expect(session.length).toBe(2);
    expect(session.eventAt(1)).toBe(second);
    expect(session.eventAt(2)).toBeUndefined();
  });

  it('copies the writer’s data instead of aliasing it', () => {
    const data = { role: 'user', content: ['a'] };
    const session = sessionOf({ type: 'user/message', data });
    data.content.push('b');
    expect(session.eventAt(0)!.data).toEqual({ role: 'user', content: ['a'] });
  });

  it('events is a frozen snapshot: the same array until the next append, unchanged after it', () => {
    const session = sessionOf(drafts.turnStart());
    const snapshot = session.events;
    expect(session.events).toBe(snapshot);
    expect(Object.isFrozen(snapshot)).toBe(true);
    session.append(drafts.stepStart());
    expect(snapshot).toHaveLength(1);
    expect(session.events).toHaveLength(2);
    expect(session.events[0]).toBe(snapshot[0]);
  });

  it('deriveMessages returns a cached array that never changes after later appends', () => {
    const session = sessionOf(drafts.user('a'));
    const before = session.deriveMessages();
    expect(session.deriveMessages()).toBe(before);
    session.append(drafts.turnStart());
    expect(session.deriveMessages()).toBe(before); // a non-surface event changes nothing
    session.append(drafts.user('b'));
    expect(before).toEqual([{ role: 'user', content: 'a' }]);
    expect(Object.isFrozen(before)).toBe(true);
    expect(session.deriveMessages()).toHaveLength(2);
  });
});

describe('Session subscribers', () => {
  it('run after the commit, in order, and stop after an idempotent unsubscribe', () => {
    const session = new Session();
    const seen: [number, number][] = [];
    const unsubscribe = session.subscribe((event) => seen.push([event.seq, session.length]));
    session.append(drafts.turnStart());
    unsubscribe();
    unsubscribe();
    session.append(drafts.stepStart());
    expect(seen).toEqual([[0, 1]]);
  });

  it('the same function subscribed twice is called twice and unsubscribed one at a time', () => {
    const session = new Session();
    let calls = 0;
    const listener = (): void => void calls++;
    const first = session.subscribe(listener);
    session.subscribe(listener);
    session.append(drafts.turnStart());
    first();
    first();
    session.append(drafts.stepStart());
    expect(calls).toBe(3);
  });

  it('a throwing listener neither breaks the append nor the other listeners, and is reported', () => {
    const reported: [unknown, number][] = [];
    const session = new Session({ onListenerError: (error, event) => reported.push([error, event.seq]) });
    const seen: number[] = [];
    session.subscribe(() => {
      throw new Error('boom');
    });
    session.subscribe((event) => seen.push(event.seq));
    const event = session.append(drafts.turnStart());
    expect(event.seq).toBe(0);
    expect(session.length).toBe(1);
    expect(seen).toEqual([0]);
    expect(reported).toHaveLength(1);
    expect((reported[0]![0] as Error).message).toBe('boom');
  });

  it('rejects an append (or applyCommitted) from inside a listener with REENTRANT_APPEND', () => {
    const reported: unknown[] = [];
    const session = new Session({ onListenerError: (error) => reported.push(error) });
    const checked: number[] = [];
    session.subscribe((event) => {
      checked.push(session.check([drafts.user('check is allowed in a listener')]).length);
      if (event.seq === 0) session.append(drafts.stepStart());
    });
    session.append(drafts.turnStart());
    expect(session.length).toBe(1);
    expect(checked).toEqual([1]);
    expect(reported).toHaveLength(1);
    expect(reported[0]).toMatchObject({ code: 'REENTRANT_APPEND' });
    // After the listener returns, appends work again.
    session.append(drafts.stepStart());
    expect(session.length).toBe(2);
  });

  it('listeners of applyCommitted see every event of the batch once the batch is in', () => {
    const source = sessionOf(drafts.turnStart(), drafts.user('a'), drafts.stepStart());
    const replica = new Session();
    const seen: [number, number][] = [];
    replica.subscribe((event: SessionEvent) => seen.push([event.seq, replica.length]));
    replica.applyCommitted(source.events);
    expect(seen).toEqual([
      [0, 3],
      [1, 3],
      [2, 3],
    ]);
    expect(caught(() => replica.applyCommitted(source.events)).code).toBe('INVALID_LOG');
  });
});
