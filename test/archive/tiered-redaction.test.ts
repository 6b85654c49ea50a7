// Redaction over both tiers, on a real Redis and each archive backend: a redaction gives the session a new epoch;
// its archived prefix stays readable through the TieredStore (the new epoch names the archived one as replaced:
// `redactions.priorEpochs`), archived seqs are reported `cold` (not changed), and the archiver neither deletes the
// archive as if it were a dead epoch's nor grows it in another epoch.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { archiveSession } from '../../server/archive/archive-run.ts';
import { TieredStore } from '../../server/archive/tiered-store.ts';
import { it } from '../helpers/fixtures.ts';
import type { ArchiveHarness } from './archive-harness.ts';
import { harnessChoices } from './harness-choices.ts';
import { commitAll, turnDrafts } from './tier-helpers.ts';

describe.each(harnessChoices())('redaction through the TieredStore, $name archive', ({ open }) => {
  let harness: ArchiveHarness;

  beforeAll(async () => {
    harness = await open();
  });
  afterAll(async () => {
    await harness.close();
  });

  it('keeps the archived prefix readable and archived after a redaction of the hot part', async ({ redisStore }) => {
    const tiered = new TieredStore(redisStore, harness.backend);
    const sessionId = `tred-${randomUUID()}`;
    const epoch = await commitAll(redisStore, sessionId, turnDrafts(40));
    const archive = (): ReturnType<typeof archiveSession> =>
      archiveSession({
        store: redisStore,
        archive: harness.backend,
        sessionId,
        token: `t-${randomUUID()}`,
        before: 60,
      });
    const run = await archive();
    expect(run.status).toBe('archived');
    const cut = run.status === 'archived' ? run.cut : 0;
    const before = await tiered.read(sessionId, 0, 10_000);
    // A hot event with text to remove (a message or a chunk), above the archived prefix.
    const hotSeq = before.findLast((event) => event.seq >= cut && /message|chunk/.test(event.type))!.seq;

    const result = await tiered.redactions.redact({ sessionId, seqs: [1, hotSeq], reason: 'test', by: 'admin' });
    expect(result).toMatchObject({ status: 'redacted', seqs: [hotSeq], cold: [1] });
    const now = await tiered.head(sessionId);
    expect(now.epoch).not.toBe(epoch);
    expect(now.firstSeq).toBeUndefined(); // the archive still starts the log at seq 0

    const after = await tiered.read(sessionId, 0, 10_000);
    expect(after.map((event) => event.seq)).toEqual([...before.map((event) => event.seq), before.length]);
    expect(after.slice(0, cut)).toEqual(before.slice(0, cut)); // archived: unchanged (reported cold)
    expect(after[hotSeq]).not.toEqual(before[hotSeq]);
    expect(await archive()).toEqual({ status: 'idle' });
    expect((await harness.backend.describe(sessionId))?.epoch).toBe(epoch);
  });
});
