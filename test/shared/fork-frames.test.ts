import { describe, expect, it } from 'vitest';
import { parseClientMessage, parseServerMessage } from '../../shared/protocol-parse.ts';

describe('the fork frames', () => {
  it('parses fork (optional newId and repair) and refuses bad fields with BAD_REQUEST naming them', () => {
    expect(parseClientMessage({ type: 'fork', id: 1, sessionId: 's', atSeq: 4, extra: 1 })).toEqual({
      type: 'fork',
      id: 1,
      sessionId: 's',
      atSeq: 4,
    });
    expect(parseClientMessage({ type: 'fork', id: 1, sessionId: 's', atSeq: 0, newId: 't', repair: true })).toEqual({
      type: 'fork',
      id: 1,
      sessionId: 's',
      atSeq: 0,
      newId: 't',
      repair: true,
    });
    expect(parseClientMessage({ type: 'fork', id: 1, sessionId: 's', atSeq: 0, repair: false })).not.toHaveProperty(
      'repair',
    );
    for (const [fields, name] of [
      [{ atSeq: -1 }, 'atSeq'],
      [{ atSeq: 1.5 }, 'atSeq'],
      [{}, 'atSeq'],
      [{ atSeq: 0, newId: '' }, 'newId'],
      [{ atSeq: 0, newId: 'x'.repeat(1025) }, 'newId'],
      [{ atSeq: 0, newId: 7 }, 'newId'],
      [{ atSeq: 0, repair: 'yes' }, 'repair'],
    ] as const) {
      expect(() => parseClientMessage({ type: 'fork', id: 9, sessionId: 's', ...fields })).toThrow(
        expect.objectContaining({ code: 'BAD_REQUEST', id: 9, message: expect.stringContaining(`"${name}"`) }),
      );
    }
  });

  it('parses forked and refuses it without its fields', () => {
    const forked = {
      type: 'forked',
      id: 2,
      sessionId: 'f',
      epoch: 'e',
      headSeq: 5,
      parent: 's',
      forkSeq: 5,
      depth: 1,
      repaired: 0,
      duplicate: false,
    };
    expect(parseServerMessage({ ...forked, more: 1 })).toEqual(forked);
    const { depth: _depth, ...withoutDepth } = forked;
    expect(() => parseServerMessage(withoutDepth)).toThrow(expect.objectContaining({ code: 'BAD_REQUEST' }));
    expect(() => parseServerMessage({ ...forked, duplicate: 'no' })).toThrow(
      expect.objectContaining({ code: 'BAD_REQUEST' }),
    );
  });
});
