import { describe, expect, it } from 'vitest';
import { sessionIdProblem, validateSessionId } from '../../server/store/session-id.ts';

describe('session id rule', () => {
  it('accepts ids of 1 to 256 code points of printable Unicode without braces', () => {
    for (const id of ['a', 'user:42/chat-7', 'ünïcødé 😀', '😀'.repeat(256), 'x'.repeat(256), '[*?]']) {
      expect(sessionIdProblem(id)).toBeUndefined();
      expect(() => validateSessionId(id)).not.toThrow();
    }
  });

  it('names the problem of a bad id and throws BAD_REQUEST for it', () => {
    const cases: [unknown, RegExp][] = [
      [42, /string/],
      ['', /empty/],
      ['x'.repeat(257), /at most 256/],
      ['a\nb', /control/],
      ['a\u0085b', /control/],
      ['a\u007fb', /control/],
      ['a{b', /"\{" or "\}"/],
      ['a}b', /"\{" or "\}"/],
      ['a\ud800b', /well-formed/],
    ];
    for (const [id, problem] of cases) {
      expect(sessionIdProblem(id)).toMatch(problem);
      expect(() => validateSessionId(id)).toThrow(expect.objectContaining({ code: 'BAD_REQUEST' }));
    }
  });
});
