// Retention over both tiers (server/archive/tiered-retention.ts), on a real Redis and each archive backend: a
// session archived and trimmed to nothing has no event in Redis to tell its last activity, so the hot store alone
// would keep it forever; through the TieredStore the archive's last event tells, and an expiry deletes both tiers.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { archiveSession } from '../../server/archive/archive-run.ts';
import { TieredStore } from '../../server/archive/tiered-store.ts';
import { it } from '../helpers/fixtures.ts';
import type { ArchiveHarness } from './archive-harness.ts';
import { harnessChoices } from './harness-choices.ts';
import { commitAll, turnDrafts } from './tier-helpers.ts';

const DAY = 24 * 3600 * 1000;

describe.each(harnessChoices())('retention through the TieredStore, $name archive', ({ open }) => {
  let harness: ArchiveHarness;

  beforeAll(async () => {
    harness = await open();
  });
  afterAll(async () => {
    await harness.close();
  });

  it('expires a session archived whole once its last archived event is idle, and deletes its archive', async ({
    redisStore,
  }) => {
    const tiered = new TieredStore(redisStore, harness.backend);
    const sessionId = `tret-${randomUUID()}`;
    const epoch = await commitAll(redisStore, sessionId, turnDrafts(20));
    const run = await archiveSession({
      store: redisStore,
      archive: harness.backend,
      sessionId,
      token: `t-${randomUUID()}`,
    });
    expect(run.status).toBe('archived');
    const cold = await harness.backend.describe(sessionId);
    const head = await redisStore.head(sessionId);
    expect(head.firstSeq).toBe(head.headSeq + 1); // nothing left in Redis but the seqs
    const request = (idleSince: number) => ({ expiredAt: Date.now(), tombstoneTtlMs: DAY, idleSince });

    // The hot store alone cannot tell: it keeps the session.
    expect(await redisStore.retention.expire(sessionId, request(Date.now() + DAY))).toMatchObject({ status: 'active' });
    // Through the tiers: active while the last archived event is newer than the rule, expired once it is older.
    expect(await tiered.retention.expire(sessionId, request(cold!.lastTime - 1))).toMatchObject({ status: 'active' });
    expect(await harness.backend.describe(sessionId)).toBeDefined();
    const expired = await tiered.retention.expire(sessionId, request(Date.now() + DAY));
    expect(expired).toMatchObject({ status: 'expired', epoch, lastActivity: cold!.lastTime });
    expect(await harness.backend.describe(sessionId)).toBeUndefined();
    expect(await tiered.retention.status(sessionId)).toMatchObject({ status: 'expired' });
  });
});
