import { describe, expect, it } from 'vitest';
import { normalizeDraft, SessionLogError } from '../../shared/index.ts';

describe('normalizeDraft', () => {
  it('defaults surfaceOp on surface types only, and copies and freezes what it keeps', () => {
    const replace = { op: 'replace', startSeq: 1, endSeq: 1 } as const;
    const seqs = [1];
    const data = { role: 'user', content: 'hi' };
    const user = normalizeDraft({ type: 'user/message', data });
    const replacing = normalizeDraft({
      type: 'system/message',
      data: { content: 'x' },
      surfaceOp: replace,
      sourceEventSeqs: seqs,
    });
    const start = normalizeDraft({ type: 'turn/start', data: { turn: 1 } });
    expect(user).toEqual({ type: 'user/message', data, surfaceOp: 'append' });
    expect(start).toEqual({ type: 'turn/start', data: { turn: 1 } });
    expect(replacing.surfaceOp).toEqual(replace);
    expect(replacing.surfaceOp).not.toBe(replace);
    expect(replacing.sourceEventSeqs).not.toBe(seqs);
    seqs.push(2);
    data.content = 'changed';
    expect(replacing.sourceEventSeqs).toEqual([1]);
    expect(user.data).toEqual({ role: 'user', content: 'hi' });
    expect([Object.isFrozen(user), Object.isFrozen(user.data), Object.isFrozen(replacing.surfaceOp)]).toEqual([
      true,
      true,
      true,
    ]);
  });

  it('rejects data that is not lossless JSON with INVALID_JSON and its path', () => {
    const attempt = () => normalizeDraft({ type: 'x/y', data: { bad: Number.NaN } });
    expect(attempt).toThrow(SessionLogError);
    expect(attempt).toThrow(expect.objectContaining({ code: 'INVALID_JSON', path: 'data.bad' }));
  });
});
