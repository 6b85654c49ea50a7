// The Redis engine's redaction of a log whose first entries were trimmed (a hot base above seq 0, as a cold tier
// leaves it): entries are addressed by id, seqs below the first held entry are reported `cold`, never assumed at 0.
import { describe, expect } from 'vitest';
import { test as it } from '../helpers/fixtures.ts';

describe('RedisStore redaction above a trimmed base', () => {
  it('reports trimmed seqs as cold and rewrites the held ones from the first held entry on', async ({
    openRedisStore,
    admin,
  }) => {
    const store = await openRedisStore({ keyPrefix: 'cold:' });
    const sessionId = 'cold/1';
    const events = Array.from({ length: 6 }, (_, index) => ({ type: 'app/note', data: { secret: `s${index}` } }));
    expect((await store.commit({ sessionId, expectedSeq: 0, events })).status).toBe('committed');
    const { log } = store.keys(sessionId);
    expect(await admin.xtrim(log, 'MINID', '2-1')).toBe(2); // seqs 0 and 1 leave the stream
    const result = await store.redactions.redact({ sessionId, seqs: [0, 2, 4], reason: 'r', by: 'ops' });
    expect(result).toMatchObject({ status: 'redacted', seqs: [2, 4], cold: [0], unchanged: [], auditSeq: 6 });
    const ids = (await admin.xrange(log, '-', '+')).map(([id]) => id);
    expect(ids).toEqual(['2-1', '3-1', '4-1', '5-1', '6-1']);
    const held = await store.read(sessionId, 2, 10);
    expect(held.map((event) => event.data)).toEqual([
      '[redacted]',
      { secret: 's3' },
      '[redacted]',
      { secret: 's5' },
      expect.objectContaining({ seqs: [2, 4] }),
    ]);
    // A middle entry: the tail is deleted and re-added behind the entry before it (XSETID), same ids.
    const again = await store.redactions.redact({ sessionId, seqs: [5], reason: 'r', by: 'ops' });
    expect(again).toMatchObject({ seqs: [5], auditSeq: 7 });
    expect((await admin.xrange(log, '-', '+')).map(([id]) => id)).toEqual(['2-1', '3-1', '4-1', '5-1', '6-1', '7-1']);
    expect(await store.redactions.redact({ sessionId, seqs: [8], reason: 'r', by: 'ops' })).toMatchObject({
      status: 'out-of-range',
      headSeq: 7,
      seqs: [8],
    });
  });
});
