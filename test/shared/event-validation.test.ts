import { describe, expect, it } from 'vitest';
import type { EventDraft } from '../../shared/index.ts';
import { Session } from '../../shared/index.ts';
import { caught, drafts } from './support/session-builders.ts';

function rejectionOf(draft: unknown) {
  const session = new Session();
  return caught(() => session.append(draft as EventDraft));
}

describe('append checks the envelope (INVALID_EVENT)', () => {
  it.each([
    ['not an object', 'turn/start'],
    ['null', null],
    ['an array', []],
  ])('rejects a draft that is %s', (_name, draft) => {
    expect(rejectionOf(draft).code).toBe('INVALID_EVENT');
  });

  it.each(['', 'nodomain', '/name', 'domain/', 'a b/c', 'dom//name', 42])('rejects the type %j', (type) => {
    const error = rejectionOf({ type, data: {} });
    expect([error.code, error.seq]).toEqual(['INVALID_EVENT', 0]);
  });

  it('rejects a draft without data', () => {
    expect(rejectionOf({ type: 'x/y' })).toMatchObject({ code: 'INVALID_EVENT', path: 'data' });
  });

  it('rejects writer-chosen seq or time and unknown envelope fields', () => {
    expect(rejectionOf({ type: 'x/y', data: 1, time: 5 })).toMatchObject({ code: 'INVALID_EVENT', path: 'time' });
    expect(rejectionOf({ type: 'x/y', data: 1, seq: 0 })).toMatchObject({ code: 'INVALID_EVENT', path: 'seq' });
    expect(rejectionOf({ type: 'x/y', data: 1, extra: true })).toMatchObject({ code: 'INVALID_EVENT' });
  });

  it('rejects data that is not lossless JSON with INVALID_JSON and the path', () => {
    const error = rejectionOf({ type: 'x/y', data: { list: [1, NaN] } });
    expect(error).toMatchObject({ code: 'INVALID_JSON', path: 'data.list[1]', seq: 0 });
  });

  it('rejects a clock that is not a non-negative safe integer', () => {
    const session = new Session({ clock: () => 1.5 });
    expect(caught(() => session.append(drafts.turnStart())).code).toBe('INVALID_EVENT');
    expect(session.length).toBe(0);
  });

  it('accepts extension events with any JSON data and gives them no surfaceOp', () => {
    const session = new Session({ clock: () => 7 });
    const event = session.append({ type: 'compaction/prune', data: [1, 'x'] });
    expect(event).toEqual({ seq: 0, type: 'compaction/prune', time: 7, data: [1, 'x'] });
    expect('surfaceOp' in event).toBe(false);
  });
});

describe('append checks the known types’ data shapes (INVALID_EVENT)', () => {
  const cases: readonly [string, unknown, string][] = [
    ['turn/start', { turn: 0 }, 'data.turn'],
    ['turn/start', { turn: 1.5 }, 'data.turn'],
    ['turn/start', [], 'data'],
    ['turn/end', { turn: 1 }, 'data.reason'],
    ['turn/end', { turn: 1, reason: { kind: 'done' } }, 'data.reason.kind'],
    ['step/start', { turn: 1 }, 'data.step'],
    ['step/end', { turn: '1', step: 1 }, 'data.turn'],
    ['system/message', { content: 5 }, 'data.content'],
    ['system/message', { content: 'x', turn: 0 }, 'data.turn'],
    ['user/message', { content: 'hi' }, 'data.role'],
    ['user/message', { role: 'user' }, 'data.content'],
    ['assistant/chunk', { turn: 1, step: 1 }, 'data.chunk'],
    ['assistant/message', { turn: 1, step: 1, message: { role: 'user', content: 'x' } }, 'data.message.role'],
    ['assistant/message', { turn: 1, step: 1 }, 'data.message'],
    ['tool/call', { turn: 1, step: 1, callId: '', name: 'bash', arguments: '{}' }, 'data.callId'],
    ['tool/call', { turn: 1, step: 1, callId: 'c', name: 'bash', arguments: {} }, 'data.arguments'],
    [
      'tool/result',
      { turn: 1, step: 1, message: { role: 'tool', toolName: 'b', content: 'x' } },
      'data.message.isError',
    ],
    [
      'tool/result',
      { turn: 1, step: 1, message: { role: 'tool', toolCallId: 3, toolName: 'b', content: 'x', isError: false } },
      'data.message.toolCallId',
    ],
    [
      'tool/result',
      { turn: 1, step: 1, message: { role: 'tool', content: 'x', isError: false } },
      'data.message.toolName',
    ],
    ['request/header', { header: { config: {} }, reason: 'later' }, 'data.reason'],
    ['request/header', { header: {}, reason: 'initial' }, 'data.header.config'],
  ];

  it.each(cases)('rejects %s with %j at %s', (type, data, path) => {
    const error = rejectionOf({ type, data });
    expect(error).toMatchObject({ code: 'INVALID_EVENT', path, seq: 0 });
  });

  it('allows extra fields in known data (e.g. an envelope on a user message)', () => {
    const session = new Session();
    session.append({ type: 'user/message', data: { role: 'user', content: 'x', envelope: { via: 'cli' } } });
    expect(session.deriveMessages()).toEqual([{ role: 'user', content: 'x', envelope: { via: 'cli' } }]);
  });
});
