// Archive runs under faults (server/archive/archive-run.ts). A child process running the archiver is killed with
// SIGKILL at every step of a run (lease taken, cut planned, each segment appended, verified, trimmed): afterwards
// the session reads the same bytes through the tiers (nothing lost, duplicated or gapped), and the next run resumes
// (after the dead run's lease lapses) and ends with the prefix archived and trimmed. An archive that refuses writes
// (a read-only PostgreSQL) trims nothing, and appends keep working.
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { describe, expect, vi } from 'vitest';
import { ArchiveUnavailableError } from '../../server/archive/archive-backend.ts';
import { archiveBackendFor } from '../../server/archive/archive-location.ts';
import { archiveSession, type ArchiveStep } from '../../server/archive/archive-run.ts';
import { TieredStore } from '../../server/archive/tiered-store.ts';
import { it } from '../helpers/fixtures.ts';
import { createTestDatabase } from '../helpers/postgres.ts';
import { faultArchive, faultLocations, runFaultChild } from './fault-children.ts';
import { commitAll, exportBytes, turnDrafts } from './tier-helpers.ts';

const childPath = fileURLToPath(new URL('./run-fault-child.ts', import.meta.url));
const LEASE_MS = 300;

const kills: [ArchiveStep, number][] = [
  ['leased', 1],
  ['planned', 1],
  ['appended', 1],
  ['appended', 3],
  ['verified', 1],
  ['trimmed', 1],
];

describe.each(faultLocations)('archive runs killed at every step: $name archive', ({ create }) => {
  const tier = faultArchive(create);

  it.for(kills)(
    'killed at %s #%i: nothing lost, duplicated or gapped; the next run resumes',
    async ([step, nth], { redis, keyPrefix, redisStore }) => {
      const { archive, location } = tier;
      const sessionId = `acme/fault-${randomUUID()}`;
      await commitAll(redisStore, sessionId, turnDrafts(25));
      const tiered = new TieredStore(redisStore, archive);
      const before = await exportBytes(tiered, sessionId, { limit: 13 });
      const args = [redis.url, keyPrefix, location, sessionId, step, String(nth), String(LEASE_MS)];
      expect(await runFaultChild(childPath, `archive run child (${step} #${nth})`, args)).toBe('killed');
      expect((await exportBytes(tiered, sessionId, { limit: 13 })).bytes.equals(before.bytes)).toBe(true);
      // The dead run's lease blocks the next one until it lapses; then the run resumes where the dead one stopped.
      let result: Awaited<ReturnType<typeof archiveSession>> = { status: 'busy' };
      await vi.waitFor(
        async () => {
          result = await archiveSession({ store: redisStore, archive, sessionId, token: 'resume', segmentEvents: 25 });
          expect(result.status).not.toBe('busy');
        },
        { timeout: 10_000, interval: 20 },
      );
      expect(result).toMatchObject(step === 'trimmed' ? { status: 'idle' } : { status: 'archived', cut: before.count });
      expect(await redisStore.head(sessionId)).toMatchObject({ firstSeq: before.count, headSeq: before.count - 1 });
      expect(await archive.describe(sessionId)).toMatchObject({ startSeq: 0, nextSeq: before.count });
      const after = await exportBytes(tiered, sessionId, { limit: 13 });
      expect(after.count).toBe(before.count);
      expect(after.bytes.equals(before.bytes)).toBe(true);
    },
  );
});

describe('an archive that refuses writes', () => {
  it('a read-only PostgreSQL: the run fails with ArchiveUnavailableError, nothing is trimmed, appends go on', async ({
    redisStore,
  }) => {
    const database = await createTestDatabase('sh_archive_ro');
    try {
      const setup = archiveBackendFor(database.url);
      await setup.open(); // the schema exists; then the database turns read-only
      await setup.close();
      await database.admin(`ALTER DATABASE ${database.name} SET default_transaction_read_only = on`);
      const archive = archiveBackendFor(database.url);
      await archive.open();
      try {
        const sessionId = `acme/ro-${randomUUID()}`;
        await commitAll(redisStore, sessionId, turnDrafts(5));
        const head = await redisStore.head(sessionId);
        await expect(archiveSession({ store: redisStore, archive, sessionId, token: 'ro' })).rejects.toBeInstanceOf(
          ArchiveUnavailableError,
        );
        expect(await redisStore.head(sessionId)).toEqual(head); // no firstSeq: nothing trimmed
        await commitAll(redisStore, sessionId, turnDrafts(1, 6));
        expect((await redisStore.read(sessionId, 0, 1000)).length).toBe(head.headSeq + 1 + 7);
        // The failed run gave its lease back: the next one is not blocked.
        expect(await redisStore.archiveLease.acquire(sessionId, 'next', 1000)).toBe(true);
      } finally {
        await archive.close();
      }
    } finally {
      await database.drop();
    }
  });

  it('an archive gone away after archiving: heads answer from Redis, reads of the prefix are STORE_UNAVAILABLE', async ({
    redisStore,
  }) => {
    const database = await createTestDatabase('sh_archive_gone');
    const archive = archiveBackendFor(database.url);
    await archive.open();
    try {
      const sessionId = `acme/gone-${randomUUID()}`;
      await commitAll(redisStore, sessionId, turnDrafts(3));
      const run = await archiveSession({ store: redisStore, archive, sessionId, token: 'gone' });
      expect(run.status).toBe('archived');
      const tiered = new TieredStore(redisStore, archive);
      const head = await redisStore.head(sessionId);
      expect(await tiered.head(sessionId)).toEqual({ epoch: head.epoch, headSeq: head.headSeq });
      await database.drop(); // terminates the archive's connections and removes its data
      expect(await tiered.head(sessionId)).toEqual(head); // the hot head, with its first seq
      await expect(tiered.readStoredPage(sessionId, 0, 10)).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
      await commitAll(redisStore, sessionId, turnDrafts(1, 4)); // appends go on
    } finally {
      await archive.close();
      await database.drop();
    }
  });
});
