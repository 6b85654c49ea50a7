import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../shared/index.ts';
import { MessageProjector, Session, parseJsonl, toJsonl } from '../../shared/index.ts';
import { buildLog, logCommands } from './support/log-arbitrary.ts';
import { caught } from './support/session-builders.ts';

const first = { seq: 0, type: 'user/message', time: 1, data: { role: 'user', content: 'hi' }, surfaceOp: 'append' };
const withSeq = (seq: number): SessionEvent => ({ ...first, seq }) as unknown as SessionEvent;

// Issue 26, item 15: a stored `seq` of -0 was read as 0 by `fromLog` and `parseJsonl` (`-0 !== 0` is false), while
// every other -0 (in data, a time, a surfaceOp) is refused: it is not JSON and reads back as 0.
describe('a stored seq of -0 is refused like every other -0', () => {
  it('Session.fromLog and applyCommitted: INVALID_LOG at seq 0, path seq', () => {
    const replay = caught(() => Session.fromLog([withSeq(-0)]));
    expect([replay.code, replay.seq, replay.path]).toEqual(['INVALID_LOG', 0, 'seq']);
    expect(replay.message).toContain('got -0');
    const session = new Session();
    expect(caught(() => session.applyCommitted([withSeq(-0)]))).toMatchObject({ code: 'INVALID_LOG', seq: 0 });
    expect(session.length).toBe(0);
    expect(Session.fromLog([withSeq(0)]).length).toBe(1);
  });

  it('parseJsonl: INVALID_LOG naming the line', () => {
    const text = `\n${JSON.stringify(first).replace('"seq":0', '"seq":-0')}\n`;
    expect(Object.is((JSON.parse(text) as { seq: number }).seq, -0)).toBe(true);
    const error = caught(() => parseJsonl(text));
    expect([error.code, error.seq, error.path]).toEqual(['INVALID_LOG', 0, 'seq']);
    expect(error.message).toMatch(/^line 2: .*got -0/);
  });

  it('MessageProjector: INVALID_EVENT, nothing projected', () => {
    const projector = new MessageProjector();
    expect(caught(() => projector.apply(withSeq(-0))).code).toBe('INVALID_EVENT');
    expect(projector.length).toBe(0);
    expect(projector.apply(withSeq(0)).kind).toBe('appended');
  });

  it('any valid log: its JSONL replays, and the same text with seq -0 on the first line is refused', () => {
    fc.assert(
      fc.property(logCommands, (commands) => {
        const session = new Session({ clock: () => 1 });
        buildLog(commands, session);
        fc.pre(session.length > 0);
        const text = toJsonl(session.events);
        expect(parseJsonl(text)).toEqual(session.events);
        const spoiled = text.replace(/^\{"seq":0,/, '{"seq":-0,');
        expect(spoiled).not.toBe(text);
        expect(caught(() => parseJsonl(spoiled))).toMatchObject({ code: 'INVALID_LOG', seq: 0, path: 'seq' });
        const parsed = spoiled
          .split('\n')
          .filter((line) => line !== '')
          .map((line) => JSON.parse(line) as SessionEvent);
        expect(caught(() => Session.fromLog(parsed))).toMatchObject({ code: 'INVALID_LOG', seq: 0 });
      }),
      { numRuns: 50 },
    );
  });
});
