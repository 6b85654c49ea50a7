import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { appendFrameBytes, encodeAppendFrame, encodeDraftArray, encodedDraft } from '../../client/append-frame.ts';
import { decodeFrame, encodeFrame } from '../../shared/codec.ts';
import { normalizeDraft } from '../../shared/index.ts';
import { parseClientMessage } from '../../shared/protocol-parse.ts';
import { losslessJson } from '../shared/support/log-arbitrary.ts';

const draft = fc.record({ type: fc.constantFrom('assistant/chunk', 'x/custom', 'user/message'), data: losslessJson });
const fields = fc.record(
  {
    id: fc.nat(),
    sessionId: fc.string({ minLength: 1, maxLength: 40 }),
    expectedSeq: fc.nat(),
    idempotencyKey: fc.uuid(),
    after: fc.uuid(),
  },
  { requiredKeys: ['id', 'sessionId', 'idempotencyKey'] },
);

describe('append frames built from drafts encoded once', () => {
  it('decode to the message encodeFrame would write, at the length appendFrameBytes gives', () => {
    fc.assert(
      fc.property(fields, fc.array(draft, { minLength: 1, maxLength: 40 }), (picked, drafts) => {
        const normalized = drafts.map((each) => normalizeDraft(each));
        const message = { type: 'append', ...picked, events: normalized } as const;
        const appendFields = { type: 'append', ...picked } as const;
        const events = encodeDraftArray(normalized);
        const frame = encodeAppendFrame(appendFields, events);
        expect(frame.byteLength).toBe(appendFrameBytes(appendFields, events));
        expect(parseClientMessage(decodeFrame(frame))).toEqual(parseClientMessage(decodeFrame(encodeFrame(message))));
      }),
      { numRuns: 200 },
    );
  });

  it('write array headers of every size class (fixarray, array 16, array 32)', () => {
    for (const count of [1, 15, 16, 65_535, 65_536]) {
      const drafts = Array.from({ length: count }, () => normalizeDraft({ type: 'x/n', data: 1 }));
      expect(decodeFrame(encodeDraftArray(drafts))).toHaveLength(count);
    }
  });

  it('encode a draft once, and a normalized draft normalizes to itself', () => {
    const normalized = normalizeDraft({ type: 'assistant/chunk', data: { text: 'hi' } });
    expect(normalizeDraft(normalized)).toBe(normalized);
    expect(encodedDraft(normalized)).toBe(encodedDraft(normalized));
    const copy = normalizeDraft({ type: 'assistant/chunk', data: { text: 'hi' } });
    expect(copy).not.toBe(normalized);
    expect(encodedDraft(copy)).toEqual(encodedDraft(normalized));
  });
});
