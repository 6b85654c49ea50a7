import { describe, expect, it } from 'vitest';
import type { SessionEvent, ValidatedDraft } from '../../shared/index.ts';
import { Session, deriveMessages } from '../../shared/index.ts';
import { caught, drafts, replace, reparsed, sessionOf } from './support/session-builders.ts';

/** What the hub does after a successful store commit: stamp seq and time onto the validated drafts. */
function commitAt(validated: readonly ValidatedDraft[], firstSeq: number, time: number): SessionEvent[] {
  return validated.map((draft, index) => ({ seq: firstSeq + index, time, ...draft }) as SessionEvent);
}

describe('Session.check validates a batch without changing the session', () => {
  it('returns normalized frozen drafts: surfaceOp defaulted, data copied and frozen', () => {
    const session = sessionOf(drafts.turnStart());
    const data = { role: 'user', content: 'x' };
    const [validated] = session.check([{ type: 'user/message', data }]);
    expect(validated).toEqual({ type: 'user/message', data, surfaceOp: 'append' });
    expect(validated!.data).not.toBe(data);
    expect(Object.isFrozen(validated) && Object.isFrozen(validated!.data)).toBe(true);
    expect(session.length).toBe(1);
  });

  it('lets later drafts see earlier ones of the same batch (a replace of an event earlier in the batch)', () => {
    const session = sessionOf(drafts.turnStart());
    const batch = [drafts.user('draft'), drafts.user('final', replace(1, 1, [1]))];
    const validated = session.check(batch);
    expect(validated.map((draft) => draft.surfaceOp)).toEqual(['append', { op: 'replace', startSeq: 1, endSeq: 1 }]);
    expect(session.length).toBe(1);
    expect(session.deriveMessages()).toEqual([]);
  });

  it('throws with the seq the bad draft would have had, and keeps the surface as it was', () => {
    const session = sessionOf(drafts.user('a'));
    const error = caught(() => session.check([drafts.user('b'), drafts.user('c'), { type: 'x', data: 1 }]));
    expect([error.code, error.seq]).toEqual(['INVALID_EVENT', 3]);
    // Nothing of the batch stuck: seq 1 is not on the surface.
    expect(caught(() => session.check([drafts.user('d', replace(1, 1, [0]))])).path).toBe('surfaceOp.startSeq');
    expect(session.check([])).toEqual([]);
  });

  it('does not see events of the batch as committed when checked twice', () => {
    const session = sessionOf(drafts.user('a'));
    const batch = [drafts.user('b'), drafts.user('c', replace(1, 1, [1]))];
    expect(session.check(batch)).toEqual(session.check(batch));
  });
});

describe('Session.applyCommitted (the hub’s read-back path)', () => {
  it('check → commit elsewhere → applyCommitted gives the same log and messages on every node', () => {
    const writer = sessionOf(drafts.system('sys'), drafts.turnStart());
    const follower = Session.fromLog(reparsed(writer.events));
    const validated = writer.check([drafts.user('q'), drafts.system('sys2', replace(0, 0, [0]))]);
    const committed = reparsed(commitAt(validated, writer.length, 123));
    writer.applyCommitted(committed);
    follower.applyCommitted(committed);
    expect(writer.events).toEqual(follower.events);
    expect(writer.eventAt(3)!.time).toBe(123);
    expect(writer.deriveMessages()).toEqual([
      { role: 'system', content: 'sys2' },
      { role: 'user', content: 'q' },
    ]);
    expect(follower.deriveMessages()).toEqual(writer.deriveMessages());
    expect(deriveMessages(follower.events)).toEqual(writer.deriveMessages());
  });

  it('requires seq to continue the log and a valid time', () => {
    const session = sessionOf(drafts.turnStart());
    const event = { seq: 2, type: 'step/start', time: 5, data: { turn: 1, step: 1 } } as SessionEvent;
    expect(caught(() => session.applyCommitted([event]))).toMatchObject({ code: 'INVALID_LOG', seq: 1 });
    const badTime = { ...event, seq: 1, time: -1 } as SessionEvent;
    const error = caught(() => session.applyCommitted([badTime]));
    expect([error.code, error.seq, error.path]).toEqual(['INVALID_LOG', 1, 'time']);
    expect(session.length).toBe(1);
  });

  it('is all or nothing per call', () => {
    const session = sessionOf(drafts.turnStart());
    const good = { seq: 1, type: 'step/start', time: 5, data: { turn: 1, step: 1 } };
    const bad = { seq: 2, type: 'step/end', time: 5, data: { turn: 1 } };
    expect(caught(() => session.applyCommitted([good, bad] as SessionEvent[])).seq).toBe(2);
    expect(session.length).toBe(1);
  });
});

describe('Session.applyChecked (the hub’s own commits)', () => {
  it('gives the same log, surface and messages as applyCommitted for events built from check()', () => {
    const checked = sessionOf(drafts.system('sys'), drafts.turnStart());
    const replayed = Session.fromLog(reparsed(checked.events));
    const validated = checked.check([drafts.user('q'), drafts.system('sys2', replace(0, 0, [0]))]);
    const events = commitAt(validated, checked.length, 77);
    checked.applyChecked(events);
    replayed.applyCommitted(reparsed(events));
    expect(checked.events).toEqual(replayed.events);
    expect(checked.deriveMessages()).toEqual(replayed.deriveMessages());
    // The surface was folded: a later replace sees the new system prompt (seq 3) as the current one.
    expect(() => checked.check([drafts.system('sys3', replace(3, 3, [3]))])).not.toThrow();
    expect(caught(() => checked.check([drafts.system('sys3', replace(0, 0, [0]))])).code).toBe('SURFACE_VIOLATION');
  });

  it('still requires seq to continue the log and a valid time, all or nothing', () => {
    const session = sessionOf(drafts.turnStart());
    const [draft] = session.check([drafts.user('q')]);
    expect(caught(() => session.applyChecked(commitAt([draft!], 2, 5))).seq).toBe(1);
    expect(caught(() => session.applyChecked(commitAt([draft!], 1, -1))).path).toBe('time');
    expect(session.length).toBe(1);
  });
});

describe('Session.fromLog', () => {
  const log = () =>
    reparsed(sessionOf(drafts.turnStart(), drafts.user('a'), drafts.user('b', replace(1, 1, [1]))).events);

  it('rebuilds the same events and messages', () => {
    const events = log();
    const session = Session.fromLog(events);
    expect(session.events).toEqual(events);
    expect(session.deriveMessages()).toEqual([{ role: 'user', content: 'b' }]);
    expect(Object.isFrozen(session.eventAt(1)!.data)).toBe(true);
  });

  it.each([
    ['a seq gap', (events: Record<string, unknown>[]) => (events[1]!['seq'] = 5), 1, 'INVALID_EVENT'],
    ['a missing time', (events: Record<string, unknown>[]) => delete events[0]!['time'], 0, 'INVALID_EVENT'],
    ['a fractional time', (events: Record<string, unknown>[]) => (events[2]!['time'] = 1.5), 2, 'INVALID_EVENT'],
    ['an empty type', (events: Record<string, unknown>[]) => (events[1]!['type'] = ''), 1, 'INVALID_EVENT'],
    ['bad data', (events: Record<string, unknown>[]) => (events[0]!['data'] = { turn: 1, x: -0 }), 0, 'INVALID_JSON'],
    [
      'a broken replace',
      (events: Record<string, unknown>[]) => (events[2]!['surfaceOp'] = { op: 'replace', startSeq: 0, endSeq: 0 }),
      2,
      'SURFACE_VIOLATION',
    ],
  ])('rejects %s with INVALID_LOG naming the first bad seq and the reason', (_name, corrupt, seq, cause) => {
    const events = log() as unknown as Record<string, unknown>[];
    corrupt(events);
    const error = caught(() => Session.fromLog(events as unknown as SessionEvent[]));
    expect([error.code, error.seq, (error.cause as { code: string }).code]).toEqual(['INVALID_LOG', seq, cause]);
    expect(error.message).toContain(`event ${seq}`);
    expect(error.message).toContain(cause);
  });
});
