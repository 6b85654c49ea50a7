import { describe, expect, it } from 'vitest';
import { Session, parseJsonl, toJsonl } from '../../shared/index.ts';
import { FIXTURE_NAMES, fixtureLog, fixtureMessages } from './support/fixtures.ts';
import { caught, drafts, replace, sessionOf } from './support/session-builders.ts';

describe('toJsonl / parseJsonl', () => {
  it.each(FIXTURE_NAMES)('round-trips the %s fixture', (name) => {
    const events = parseJsonl(fixtureLog(name));
    expect(Session.fromLog(events).deriveMessages()).toStrictEqual(fixtureMessages(name));
    const again = parseJsonl(toJsonl(events));
    expect(again).toEqual(events);
    expect(toJsonl(again)).toBe(toJsonl(events));
  });

  it('writes one event per line in envelope order, and skips blank lines and CRLF on read', () => {
    const session = sessionOf(drafts.turnStart(), drafts.user('a\nb'));
    const text = toJsonl(session.events);
    const lines = text.split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[2]).toBe('');
    expect(Object.keys(JSON.parse(lines[1]!) as object)).toEqual(['seq', 'type', 'time', 'data', 'surfaceOp']);
    expect(parseJsonl(`\n${text.replaceAll('\n', '\r\n')}\n\n`)).toEqual(session.events);
    expect(toJsonl([])).toBe('');
  });

  it.each([
    ['{ op, start, end }', { op: 'replace', start: 1, end: 1 }],
    ['{ op, start_seq, end_seq }', { op: 'replace', start_seq: 1, end_seq: 1 }],
  ])('normalises the replace spelling %s to startSeq/endSeq', (_name, surfaceOp) => {
    const lines = [
      { seq: 0, type: 'turn/start', time: 1, data: { turn: 1 } },
      { seq: 1, type: 'user/message', time: 1, data: { role: 'user', content: 'a' }, surfaceOp: 'append' },
      { seq: 2, type: 'user/message', time: 1, data: { role: 'user', content: 'b' }, surfaceOp, sourceEventSeqs: [1] },
    ];
    const events = parseJsonl(lines.map((line) => JSON.stringify(line)).join('\n'));
    expect(events[2]!.surfaceOp).toEqual({ op: 'replace', startSeq: 1, endSeq: 1 });
    expect(Session.fromLog(events).deriveMessages()).toEqual([{ role: 'user', content: 'b' }]);
  });

  it('accepts the seed’s snake_case envelope keys', () => {
    const line = { seq: 0, type: 'user/message', time: 1, data: { role: 'user', content: 'a' }, surface_op: 'append' };
    expect(parseJsonl(JSON.stringify(line))[0]!.surfaceOp).toBe('append');
  });

  it('names the line of text that is not JSON', () => {
    const error = caught(() => parseJsonl('{"seq":0,"type":"turn/start","time":1,"data":{"turn":1}}\n\n{oops'));
    expect(error.code).toBe('INVALID_LOG');
    expect(error.message).toMatch(/^line 3: not JSON/);
  });

  it('names the line and seq of an event that fails validation', () => {
    const session = sessionOf(drafts.turnStart(), drafts.user('a'), drafts.user('b', replace(1, 1, [1])));
    const text = `\n${toJsonl(session.events).replace('"startSeq":1', '"startSeq":0')}`;
    const error = caught(() => parseJsonl(text));
    expect([error.code, error.seq]).toEqual(['INVALID_LOG', 2]);
    expect(error.message).toMatch(/^line 4: event 2: SURFACE_VIOLATION/);
  });
});
