// Restores under faults (server/archive/restore-run.ts). A child process restoring an archived session on a real
// Redis is killed with SIGKILL at every step (lease taken, planned, each page staged, swapped, verified, archive
// deleted): afterwards the session reads the same bytes through the tiers (nothing lost, duplicated or gapped), a
// stage left behind has an expiry, and the next restore (after the dead one's lease lapses) ends with the whole log
// in Redis, the same bytes, and no archive.
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { describe, expect, vi } from 'vitest';
import { archiveSession } from '../../server/archive/archive-run.ts';
import { restoreSession, type RestoreRunResult, type RestoreStep } from '../../server/archive/restore-run.ts';
import { TieredStore } from '../../server/archive/tiered-store.ts';
import { it } from '../helpers/fixtures.ts';
import { faultArchive, faultLocations, runFaultChild } from './fault-children.ts';
import { commitAll, exportBytes, turnDrafts } from './tier-helpers.ts';

const childPath = fileURLToPath(new URL('./run-fault-child.ts', import.meta.url));
const LEASE_MS = 300;

const kills: [RestoreStep, number][] = [
  ['leased', 1],
  ['planned', 1],
  ['staged', 1],
  ['staged', 3],
  ['swapped', 1],
  ['verified', 1],
  ['deleted', 1],
];

describe.each(faultLocations)('restores killed at every step: $name archive', ({ create }) => {
  const tier = faultArchive(create);

  it.for(kills)(
    'killed at %s #%i: nothing lost, duplicated or gapped; the next restore finishes',
    async ([step, nth], { redis, keyPrefix, redisStore }) => {
      const { archive, location } = tier;
      const sessionId = `acme/rfault-${randomUUID()}`;
      await commitAll(redisStore, sessionId, turnDrafts(25));
      const tiered = new TieredStore(redisStore, archive);
      const before = await exportBytes(tiered, sessionId, { limit: 13 });
      const run = await archiveSession({ store: redisStore, archive, sessionId, token: 'a', before: 100 });
      expect(run).toMatchObject({ status: 'archived' });
      const args = [redis.url, keyPrefix, location, sessionId, step, String(nth), String(LEASE_MS), 'restore'];
      expect(await runFaultChild(childPath, `restore child (${step} #${nth})`, args)).toBe('killed');
      expect((await exportBytes(tiered, sessionId, { limit: 13 })).bytes.equals(before.bytes)).toBe(true);
      const stage = redisStore.keys(sessionId).restoreStage;
      const admin = new Redis(redis.url);
      try {
        const ttl = await admin.pttl(stage);
        // A stage is left only by a restore killed while staging, and it lapses (-2: no stage).
        expect(step === 'staged' ? ttl > 0 : ttl === -2).toBe(true);
      } finally {
        admin.disconnect();
      }
      // The dead restore's lease blocks the next one until it lapses; then the restore finishes.
      let result: RestoreRunResult = { status: 'busy' };
      await vi.waitFor(
        async () => {
          result = await restoreSession({ store: redisStore, archive, sessionId, token: 'resume', pageEvents: 25 });
          expect(result.status).not.toBe('busy');
        },
        { timeout: 10_000, interval: 20 },
      );
      const swapped = step === 'swapped' || step === 'verified';
      if (step === 'deleted') expect(result).toEqual({ status: 'idle' });
      else
        expect(result).toMatchObject({
          status: 'restored',
          restored: swapped ? 0 : run.status === 'archived' ? run.cut : -1,
        });
      expect(await redisStore.head(sessionId)).toEqual({
        epoch: run.status === 'archived' ? run.epoch : '',
        headSeq: before.count - 1,
      });
      expect(await archive.describe(sessionId)).toBeUndefined();
      const persisted = new Redis(redis.url);
      try {
        expect(await persisted.pttl(redisStore.keys(sessionId).log)).toBe(-1); // the swap took the stage's expiry off
      } finally {
        persisted.disconnect();
      }
      const after = await exportBytes(redisStore, sessionId, { limit: 13 });
      expect(after.count).toBe(before.count);
      expect(after.bytes.equals(before.bytes)).toBe(true);
    },
  );
});
