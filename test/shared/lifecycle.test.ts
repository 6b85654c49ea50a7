import { describe, expect, it } from 'vitest';
import type { EventDraft, LifecycleViolationCode, Session } from '../../shared/index.ts';
import { parseJsonl, repairInterrupted, validateLifecycle } from '../../shared/index.ts';
import { FIXTURE_NAMES, fixtureLog } from './support/fixtures.ts';
import { drafts, replace, sessionOf } from './support/session-builders.ts';

const { turnStart, turnEnd, stepStart, stepEnd, call, result, chunk, assistant } = drafts;

function violations(items: EventDraft[], complete = false): [number, LifecycleViolationCode][] {
  return validateLifecycle(sessionOf(...items).events, { complete }).map((item) => [item.seq, item.code]);
}

describe('validateLifecycle', () => {
  it.each(FIXTURE_NAMES)('finds no violation in the %s fixture, even as a complete log', (name) => {
    expect(validateLifecycle(parseJsonl(fixtureLog(name)), { complete: true })).toEqual([]);
  });

  it('accepts a turn with zero steps and an open last turn (a live session)', () => {
    expect(violations([turnStart(1), turnEnd(1), turnStart(2), stepStart(2, 1), call('c', 'bash', 2, 1)])).toEqual([]);
  });

  it.each<[string, EventDraft[], [number, LifecycleViolationCode][]]>([
    ['turns not from 1', [turnStart(2)], [[0, 'TURN_OUT_OF_ORDER']]],
    ['a skipped turn number', [turnStart(1), turnEnd(1), turnStart(3)], [[2, 'TURN_OUT_OF_ORDER']]],
    ['a turn opened inside another', [turnStart(1), turnStart(2)], [[1, 'TURN_ALREADY_OPEN']]],
    [
      'a turn opened inside another, with that turn’s open step and unanswered call',
      [turnStart(1), stepStart(1, 1), call('c'), turnStart(2), stepStart(2, 1), stepEnd(2, 1), turnEnd(2)],
      [
        [3, 'TURN_ALREADY_OPEN'],
        [3, 'STEP_NOT_CLOSED'],
        [3, 'CALL_UNANSWERED'],
      ],
    ],
    [
      'an unanswered call of a turn abandoned by the next turn/start, once',
      [turnStart(1), stepStart(1, 1), call('c'), stepEnd(1, 1), turnStart(2)],
      [
        [4, 'TURN_ALREADY_OPEN'],
        [4, 'CALL_UNANSWERED'],
      ],
    ],
    ['turn/end without a turn', [turnEnd(1)], [[0, 'TURN_NOT_OPEN']]],
    ['turn/end of another number', [turnStart(1), turnEnd(2)], [[1, 'TURN_NOT_OPEN']]],
    ['turn/end inside a step', [turnStart(), stepStart(), turnEnd()], [[2, 'TURN_ENDED_WITH_OPEN_STEP']]],
    ['a step outside a turn', [stepStart(1, 1)], [[0, 'STEP_OUTSIDE_TURN']]],
    ['a step of another turn', [turnStart(1), stepStart(2, 1)], [[1, 'STEP_OUTSIDE_TURN']]],
    ['steps not from 1', [turnStart(), stepStart(1, 2)], [[1, 'STEP_OUT_OF_ORDER']]],
    ['a step inside a step', [turnStart(), stepStart(1, 1), stepStart(1, 2)], [[2, 'STEP_ALREADY_OPEN']]],
    ['step/end of a step not open', [turnStart(), stepStart(1, 1), stepEnd(1, 2)], [[2, 'STEP_NOT_OPEN']]],
    ['a chunk outside a step', [turnStart(), chunk('x')], [[1, 'EVENT_OUTSIDE_STEP']]],
    [
      'an assistant message of another step',
      [turnStart(), stepStart(), assistant('x', {}, 1, 2)],
      [[2, 'EVENT_OUTSIDE_STEP']],
    ],
    ['a call outside any turn', [call('c')], [[0, 'EVENT_OUTSIDE_STEP']]],
    ['a duplicate call id', [turnStart(), stepStart(), call('c'), call('c')], [[3, 'DUPLICATE_CALL_ID']]],
    ['a result without a call', [turnStart(), stepStart(), result('c', 'x')], [[2, 'RESULT_WITHOUT_CALL']]],
    [
      'a second result for one call',
      [turnStart(), stepStart(), call('c'), result('c', 'x'), result('c', 'y')],
      [[4, 'RESULT_WITHOUT_CALL']],
    ],
    [
      'a call unanswered when its turn ends',
      [turnStart(), stepStart(), call('c'), stepEnd(), turnEnd()],
      [[4, 'CALL_UNANSWERED']],
    ],
  ])('reports %s', (_name, items, expected) => {
    expect(violations(items)).toEqual(expected);
  });

  it('matches a result without toolCallId to the oldest unanswered call of that tool', () => {
    const items = [turnStart(), stepStart(), call('a', 'bash'), call('b', 'grep'), call('c', 'bash')];
    expect(
      violations([...items, result(undefined, 'x'), result(undefined, 'y'), result('b', 'z', {}, 1, 1, 'grep')], true),
    ).toEqual([
      [7, 'STEP_NOT_CLOSED'],
      [7, 'TURN_NOT_CLOSED'],
    ]);
    expect(violations([...items, result(undefined, 'x', {}, 1, 1, 'ls')])).toEqual([[5, 'RESULT_WITHOUT_CALL']]);
  });

  it('exempts replacement events from step membership and call matching', () => {
    const items = [turnStart(), stepStart(), call('c'), result('c', 'long'), stepEnd(), turnEnd()];
    expect(violations([...items, result('c', 'pruned', replace(3, 3, [3]))], true)).toEqual([]);
  });

  it('exempts an assistant/message replacement (a summary after its turn ended) from the open-step check', () => {
    const items = [turnStart(), stepStart(), assistant('long'), stepEnd(), turnEnd()];
    expect(violations([...items, assistant('summary', replace(2, 2, [2]))], true)).toEqual([]);
    expect(violations([assistant('x'), assistant('summary', replace(0, 0, [0]))])).toEqual([[0, 'EVENT_OUTSIDE_STEP']]);
  });

  it('with complete, requires closed turns and steps and answered calls at the end', () => {
    expect(violations([turnStart(), stepStart(), call('c')], true)).toEqual([
      [2, 'STEP_NOT_CLOSED'],
      [2, 'CALL_UNANSWERED'],
      [2, 'TURN_NOT_CLOSED'],
    ]);
    expect(violations([], true)).toEqual([]);
  });

  it('gives every violation a message', () => {
    const [violation] = validateLifecycle(sessionOf(turnStart(2)).events);
    expect(violation!.message).toMatch(/turn 2/);
  });
});

describe('repairInterrupted', () => {
  function repaired(items: EventDraft[]): Session {
    const session = sessionOf(...items);
    for (const draft of repairInterrupted(session.events)) session.append(draft);
    return session;
  }

  it('answers open calls with errors, closes the step, ends the turn as interrupted', () => {
    const session = repaired([turnStart(), stepStart(), assistant('calling'), call('a'), call('b', 'grep')]);
    expect(validateLifecycle(session.events, { complete: true })).toEqual([]);
    expect(session.events.slice(5).map((event) => event.type)).toEqual([
      'tool/result',
      'tool/result',
      'step/end',
      'turn/end',
    ]);
    expect(session.eventAt(5)!.sourceEventSeqs).toEqual([3]);
    expect(session.eventAt(8)!.data).toEqual({ turn: 1, reason: { kind: 'interrupted' } });
    expect(session.deriveMessages().at(-1)).toMatchObject({ role: 'tool', toolCallId: 'b', isError: true });
  });

  it('opens a step for the error results when the calls’ step was closed', () => {
    const session = repaired([turnStart(), stepStart(), call('a'), stepEnd()]);
    expect(session.events.slice(4).map((event) => [event.type, event.data])).toEqual([
      ['step/start', { turn: 1, step: 2 }],
      ['tool/result', expect.objectContaining({ turn: 1, step: 2 })],
      ['step/end', { turn: 1, step: 2 }],
      ['turn/end', { turn: 1, reason: { kind: 'interrupted' } }],
    ]);
    expect(validateLifecycle(session.events, { complete: true })).toEqual([]);
  });

  it('closes an open turn without steps, and returns nothing for a closed log', () => {
    expect(repairInterrupted(sessionOf(turnStart()).events)).toEqual([
      { type: 'turn/end', data: { turn: 1, reason: { kind: 'interrupted' } } },
    ]);
    expect(repairInterrupted(sessionOf(turnStart(), turnEnd()).events)).toEqual([]);
  });
});
