import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { EventDraft, SessionEvent } from '../../shared/index.ts';
import { Session, normalizeDraft } from '../../shared/index.ts';
import { caught, drafts } from './support/session-builders.ts';

/** What can be done to a valid `{ op: 'replace', startSeq: 0, endSeq: 0 }` (only the last two keep it JSON). */
type Spoiler = 'class instance' | 'symbol key' | 'non-enumerable property' | 'getter' | 'null prototype';
const refused: ReadonlySet<Spoiler> = new Set(['class instance', 'symbol key', 'non-enumerable property']);

class ReplaceOp {
  readonly op = 'replace';
  readonly startSeq = 0;
  readonly endSeq = 0;
}

/** A replace op of seq 0 with `spoilers` applied; `reads` counts the reads of its getter. */
function spoiledOp(spoilers: readonly Spoiler[], reads = { count: 0 }): object {
  let op: Record<string | symbol, unknown> = spoilers.includes('class instance')
    ? (new ReplaceOp() as unknown as Record<string, unknown>)
    : { op: 'replace', startSeq: 0, endSeq: 0 };
  if (spoilers.includes('null prototype') && !spoilers.includes('class instance')) {
    op = Object.assign(Object.create(null) as Record<string, unknown>, op);
  }
  if (spoilers.includes('getter')) {
    Object.defineProperty(op, 'endSeq', { get: () => (reads.count++, 0), enumerable: true });
  }
  if (spoilers.includes('symbol key')) op[Symbol('note')] = 1;
  if (spoilers.includes('non-enumerable property')) Object.defineProperty(op, 'note', { value: 1 });
  return op;
}

const replacing = (surfaceOp: object): EventDraft =>
  drafts.user('again', { surfaceOp: surfaceOp as EventDraft['surfaceOp'], sourceEventSeqs: [0] });

/** The log `user(0), user(1) replacing 0` as stored events, the second with `surfaceOp`. */
function storedLog(surfaceOp: object): SessionEvent[] {
  const first = { seq: 0, time: 1, type: 'user/message', data: { role: 'user', content: 'hi' }, surfaceOp: 'append' };
  const second = { ...replacing(surfaceOp), seq: 1, time: 2, surfaceOp };
  return [first, second] as unknown as SessionEvent[];
}

// Issue 26, item 13: `surfaceOp` was not held to lossless JSON: a class instance, a symbol key or a non-enumerable
// extra property was accepted at append and at replay, while `sourceEventSeqs` was checked.
describe('surfaceOp is lossless JSON, at append and at replay', () => {
  it.each<[Spoiler, string]>([
    ['class instance', 'surfaceOp'],
    ['symbol key', 'surfaceOp'],
    ['non-enumerable property', 'surfaceOp.note'],
  ])('a surfaceOp with a %s is INVALID_JSON at append and INVALID_LOG at replay', (spoiler, path) => {
    const session = new Session();
    session.append(drafts.user('hi'));
    const error = caught(() => session.append(replacing(spoiledOp([spoiler]))));
    expect([error.code, error.path, error.seq]).toEqual(['INVALID_JSON', path, 1]);
    expect(session.length).toBe(1);
    expect(caught(() => session.check([replacing(spoiledOp([spoiler]))]))).toMatchObject({ code: 'INVALID_JSON' });

    const replay = caught(() => Session.fromLog(storedLog(spoiledOp([spoiler]))));
    expect([replay.code, replay.seq, (replay.cause as { code?: string }).code]).toEqual([
      'INVALID_LOG',
      1,
      'INVALID_JSON',
    ]);
    const live = Session.fromLog(storedLog({ op: 'replace', startSeq: 0, endSeq: 0 }).slice(0, 1));
    expect(caught(() => live.applyCommitted(storedLog(spoiledOp([spoiler])).slice(1)))).toMatchObject({
      code: 'INVALID_LOG',
      seq: 1,
    });
  });

  it('the SDK’s normalizeDraft refuses them too (it copied them into a plain object before)', () => {
    for (const spoiler of refused) {
      expect(() => normalizeDraft(replacing(spoiledOp([spoiler]))), spoiler).toThrow(
        expect.objectContaining({ code: 'INVALID_JSON' }),
      );
    }
    const hidden = Object.defineProperty([0], 'note', { value: 1 });
    expect(() => normalizeDraft(drafts.user('x', { sourceEventSeqs: hidden }))).toThrow(
      expect.objectContaining({ code: 'INVALID_JSON', path: 'sourceEventSeqs' }),
    );
  });

  it('any mix of spoilers: accepted exactly when the op stays JSON, as a plain frozen op with a getter read once', () => {
    const spoilers = fc.subarray<Spoiler>([...refused, 'getter', 'null prototype'] as Spoiler[]);
    fc.assert(
      fc.property(spoilers, fc.boolean(), (chosen, stored) => {
        const reads = { count: 0 };
        const op = spoiledOp(chosen, reads);
        const accepts = !chosen.some((spoiler) => refused.has(spoiler));
        const run = (): SessionEvent => {
          if (stored) return Session.fromLog(storedLog(op)).events[1]!;
          const session = new Session({ clock: () => 2 });
          session.append(drafts.user('hi'));
          return session.append(replacing(op));
        };
        if (!accepts) {
          expect(caught(run).code).toBe(stored ? 'INVALID_LOG' : 'INVALID_JSON');
          return;
        }
        const event = run();
        expect(event.surfaceOp).toStrictEqual({ op: 'replace', startSeq: 0, endSeq: 0 });
        expect(Object.getPrototypeOf(event.surfaceOp)).toBe(Object.prototype);
        expect(Object.isFrozen(event.surfaceOp)).toBe(true);
        expect(reads.count).toBe(chosen.includes('getter') ? 1 : 0);
      }),
      { numRuns: 200 },
    );
  });
});
