import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../shared/index.ts';
import {
  Session,
  deriveMessages,
  forkPoint,
  parseJsonl,
  repairInterrupted,
  validateLifecycle,
} from '../../shared/index.ts';
import { FIXTURE_NAMES, fixtureLog } from './support/fixtures.ts';
import { buildLog, logCommands } from './support/log-arbitrary.ts';

/**
 * The fork rule (shared/fork-point.ts) at every seq of a log: what it says agrees with the whole prefix's lifecycle,
 * a child made there (the prefix, then the repair) derives the parent prefix's messages and has a valid, complete
 * lifecycle, and a window of the prefix's last events either gives the same answer or asks for earlier events.
 */
function checkForkAt(events: readonly SessionEvent[], atSeq: number): void {
  const prefix = events.slice(0, atSeq + 1);
  const point = forkPoint(prefix);
  const expectedRepair = repairInterrupted(prefix);
  if (expectedRepair.length === 0) expect(point).toEqual({ kind: 'boundary' });
  else expect(point).toEqual({ kind: 'inside-turn', turn: expect.any(Number), repair: expectedRepair });

  const repair = point.kind === 'inside-turn' ? point.repair : [];
  const child = Session.fromLog(prefix, { clock: () => 7 });
  for (const draft of repair) child.append(draft);
  // The child's own prefix is the parent's, event for event, so it derives the same messages ...
  expect(deriveMessages(child.events.slice(0, atSeq + 1))).toStrictEqual(deriveMessages(prefix));
  // ... and the repair only adds (the error results of the unanswered calls): it rewrites none of them.
  const parentMessages = deriveMessages(prefix);
  const childMessages = deriveMessages(child.events);
  expect(childMessages.slice(0, parentMessages.length)).toStrictEqual(parentMessages);
  const unanswered = repair.filter((draft) => draft.type === 'tool/result').length;
  expect(childMessages.length - parentMessages.length).toBe(unanswered);
  // After the repair the child's lifecycle is valid and complete (no open turn, every call answered).
  expect(validateLifecycle(child.events, { complete: true })).toEqual([]);
  if (point.kind === 'inside-turn') {
    expect(child.events.at(-1)).toMatchObject({ type: 'turn/end', data: { reason: { kind: 'interrupted' } } });
  }

  // Any window ending at atSeq agrees, or needs earlier events; the window from seq 0 always decides.
  for (let start = 0; start <= atSeq; start++) {
    const windowed = forkPoint(prefix.slice(start));
    if (windowed.kind !== 'need-earlier') expect(windowed).toEqual(point);
    else expect(start).toBeGreaterThan(0);
  }
}

describe('the fork rule', () => {
  it.each(FIXTURE_NAMES)('holds at every seq of fixture %s', (name) => {
    const events = Session.fromLog(parseJsonl(fixtureLog(name))).events;
    expect(validateLifecycle(events)).toEqual([]);
    for (let atSeq = 0; atSeq < events.length; atSeq++) checkForkAt(events, atSeq);
  });

  it('holds at every seq of random valid logs (replacements, prunes, open calls, open steps)', () => {
    fc.assert(
      fc.property(logCommands, (commands) => {
        const session = new Session({ clock: () => 1 });
        buildLog(commands, session);
        for (let atSeq = 0; atSeq < session.length; atSeq++) checkForkAt(session.events, atSeq);
      }),
      { numRuns: 60 },
    );
  });

  it('refuses inside a turn and names it, with the repair of its unanswered call', () => {
    const session = new Session({ clock: () => 1 });
    session.append({ type: 'user/message', data: { role: 'user', content: 'hi' } });
    session.append({ type: 'turn/start', data: { turn: 1 } });
    session.append({ type: 'step/start', data: { turn: 1, step: 1 } });
    session.append({ type: 'tool/call', data: { turn: 1, step: 1, callId: 'c1', name: 'ls', arguments: '{}' } });
    expect(forkPoint(session.events.slice(0, 1))).toEqual({ kind: 'boundary' });
    const inside = forkPoint(session.events);
    expect(inside).toMatchObject({ kind: 'inside-turn', turn: 1 });
    expect(inside.kind === 'inside-turn' ? inside.repair.map((draft) => draft.type) : []).toEqual([
      'tool/result',
      'step/end',
      'turn/end',
    ]);
    // From the turn/start on, the window is enough; a window after it is not.
    expect(forkPoint(session.events.slice(1))).toEqual(inside);
    expect(forkPoint(session.events.slice(2))).toEqual({ kind: 'need-earlier' });
    expect(forkPoint([])).toEqual({ kind: 'need-earlier' });
  });
});
