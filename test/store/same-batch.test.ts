import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../shared/index.ts';
import type { ValidatedDraft } from '../../server/store/event-store.ts';
import { isSameBatch } from '../../server/store/same-batch.ts';

const stored = (drafts: readonly ValidatedDraft[], firstSeq = 0): SessionEvent[] =>
  drafts.map((draft, index) => ({ seq: firstSeq + index, time: 1, ...draft }) as SessionEvent);

describe('same batch: a retried append compared with the events its key committed', () => {
  it('is the same batch only with the same types, data, surface ops and provenance, in order', () => {
    const batch: ValidatedDraft[] = [
      { type: 'user/message', data: { role: 'user', content: 'q' }, surfaceOp: 'append' },
      {
        type: 'system/message',
        data: { content: 's' },
        surfaceOp: { op: 'replace', startSeq: 0, endSeq: 0 },
        sourceEventSeqs: [0],
      },
    ];
    const reordered: ValidatedDraft[] = [
      { type: 'user/message', data: { content: 'q', role: 'user' }, surfaceOp: 'append' },
      batch[1]!,
    ];
    expect(isSameBatch(reordered, stored(batch))).toBe(true);
    expect(isSameBatch(batch.slice(0, 1), stored(batch))).toBe(false);
    expect(isSameBatch([batch[1]!, batch[0]!], stored(batch))).toBe(false);
    expect(isSameBatch([batch[0]!, { ...batch[1]!, sourceEventSeqs: [1] }], stored(batch))).toBe(false);
    expect(isSameBatch([batch[0]!, { ...batch[1]!, surfaceOp: 'append' }], stored(batch))).toBe(false);
    expect(isSameBatch([{ ...batch[0]!, type: 'user/other' }, batch[1]!], stored(batch))).toBe(false);
  });
});
