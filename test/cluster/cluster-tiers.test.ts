// The TieredStore (hot Redis + archive) on a 3-master Redis Cluster, both archive backends (issue #29): sessions on
// every master are archived and trimmed; HTTP pages, a WebSocket catch-up from seq 0 and the store export read the
// same bytes before and after, on a node that never saw them; appends after the trim continue the log (and archive
// in turn); retention expires a session archived whole (both tiers); a run during a slot migration archives or
// fails typed, never half, and a run after it completes.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { archiveSession } from '../../server/archive/archive-run.ts';
import { TieredStore } from '../../server/archive/tiered-store.ts';
import type { ArchiveHarness } from '../archive/archive-harness.ts';
import { harnessChoices } from '../archive/harness-choices.ts';
import { append, httpExport, sessionPath, untilSnapshotAtHead, wsCatchUp, wsExport } from '../archive/hub-reads.ts';
import { exportBytes, turnDrafts } from '../archive/tier-helpers.ts';
import { clusterTest, sessionsOnEveryMaster, slotOf, startClusterHub } from './cluster-hubs.ts';

const DAY = 24 * 3600 * 1000;
const it = clusterTest.extend('keyPrefix', { scope: 'file' }, 'tier:').extend('hubCount', { scope: 'file' }, 0);

describe.each(harnessChoices())('the tiers on a 3-master Redis Cluster, $name archive', ({ open }) => {
  let harness: ArchiveHarness;

  beforeAll(async () => {
    harness = await open();
  });
  afterAll(async () => {
    await harness.close();
  });

  it('archives and trims sessions on every master; every read path is byte-equal after, and appends continue', async ({
    clusterHubs,
    keyPrefix,
  }) => {
    const { cluster } = clusterHubs;
    const archive = harness.backend;
    const writer = await startClusterHub(cluster, keyPrefix, { archive });
    const sessions = await sessionsOnEveryMaster(cluster, writer.store, `tiers-${randomUUID()}`);
    expect(sessions).toHaveLength(3);
    const before = new Map<string, { pages: string[]; catchUp: string; exported: Buffer }>();
    for (const sessionId of sessions) {
      for (const events of turnDrafts(25)) expect((await append(writer.node, sessionId, events)).status).toBe(201);
      before.set(sessionId, {
        pages: await httpExport(writer.node, sessionId, 17),
        catchUp: await wsExport(writer.node, sessionId),
        exported: (await exportBytes(writer.store, sessionId, { limit: 23 })).bytes,
      });
    }

    for (const sessionId of sessions) {
      await untilSnapshotAtHead(writer.store, sessionId);
      const run = await archiveSession({ store: writer.store, archive, sessionId, token: `t-${randomUUID()}` });
      expect(run).toMatchObject({ status: 'archived', cut: JSON.parse(before.get(sessionId)!.catchUp).length });
      const cut = run.status === 'archived' ? run.cut : 0;
      expect(await writer.store.head(sessionId)).toMatchObject({ firstSeq: cut, headSeq: cut - 1 }); // none hot
    }

    const fresh = await startClusterHub(cluster, keyPrefix, { archive });
    const tiered = new TieredStore(fresh.store, archive);
    for (const sessionId of sessions) {
      const was = before.get(sessionId)!;
      expect(await httpExport(fresh.node, sessionId, 17)).toEqual(was.pages);
      expect(await wsExport(fresh.node, sessionId)).toBe(was.catchUp);
      expect((await exportBytes(tiered, sessionId, { limit: 23 })).bytes.equals(was.exported)).toBe(true);

      // Appends after the trim: the fresh node validates them against the archived turns, the log continues.
      const cut = JSON.parse(was.catchUp).length as number;
      const refused = await append(fresh.node, sessionId, turnDrafts(1, 5)[0]!);
      expect(await refused.json()).toMatchObject({ error: { code: 'LIFECYCLE_VIOLATION', details: { seq: cut } } });
      for (const events of turnDrafts(2, 26)) expect((await append(fresh.node, sessionId, events)).status).toBe(201);
      expect(await fresh.store.head(sessionId)).toMatchObject({ firstSeq: cut });
      const grown = {
        pages: await httpExport(writer.node, sessionId, 17),
        catchUp: await wsExport(writer.node, sessionId),
        exported: (await exportBytes(tiered, sessionId, { limit: 23 })).bytes,
      };
      const grownEvents = JSON.parse(grown.catchUp) as unknown[];
      expect(grownEvents.length).toBeGreaterThan(cut);
      expect(JSON.stringify(grownEvents.slice(0, cut))).toBe(was.catchUp);
      // Archived again: the appended turns go cold too, and every read is still the same.
      await untilSnapshotAtHead(fresh.store, sessionId);
      const again = await archiveSession({ store: fresh.store, archive, sessionId, token: `t-${randomUUID()}` });
      expect(again).toMatchObject({ status: 'archived', appended: grownEvents.length - cut });
      expect(await httpExport(fresh.node, sessionId, 17)).toEqual(grown.pages);
      expect(await wsExport(writer.node, sessionId)).toBe(grown.catchUp);
      expect((await exportBytes(tiered, sessionId, { limit: 23 })).bytes.equals(grown.exported)).toBe(true);
    }
  });

  it('expires a session archived whole on the cluster: both tiers deleted, reads answer SESSION_EXPIRED', async ({
    clusterHubs,
    keyPrefix,
  }) => {
    const archive = harness.backend;
    const { store, node } = await startClusterHub(clusterHubs.cluster, keyPrefix, { archive });
    const tiered = new TieredStore(store, archive);
    for (const sessionId of await sessionsOnEveryMaster(clusterHubs.cluster, store, `expire-${randomUUID()}`)) {
      for (const events of turnDrafts(6)) expect((await append(node, sessionId, events)).status).toBe(201);
      await untilSnapshotAtHead(store, sessionId);
      const run = await archiveSession({ store, archive, sessionId, token: `t-${randomUUID()}` });
      expect(run.status).toBe('archived');
      const cold = await archive.describe(sessionId);
      const request = (idleSince: number) => ({ expiredAt: Date.now(), tombstoneTtlMs: DAY, idleSince });
      expect(await tiered.retention.expire(sessionId, request(cold!.lastTime - 1))).toMatchObject({
        status: 'active',
      });
      expect(await tiered.retention.expire(sessionId, request(Date.now() + DAY))).toMatchObject({
        status: 'expired',
        lastActivity: cold!.lastTime,
      });
      expect(await archive.describe(sessionId)).toBeUndefined();
      const page = await fetch(`${node.url}${sessionPath(sessionId)}/events?from=0`);
      expect(page.status).toBe(410);
      expect(await page.json()).toMatchObject({ error: { code: 'SESSION_EXPIRED' } });
    }
  });

  it('a run while the session’s slot migrates archives or fails typed, never half; a run after it completes', async ({
    clusterHubs,
    keyPrefix,
  }) => {
    const { cluster } = clusterHubs;
    const archive = harness.backend;
    const { store, node } = await startClusterHub(cluster, keyPrefix, { archive });
    const sessionId = `migrate-${randomUUID()}`;
    for (const events of turnDrafts(40)) expect((await append(node, sessionId, events)).status).toBe(201);
    await untilSnapshotAtHead(store, sessionId);
    const pages = await httpExport(node, sessionId, 50);
    const catchUp = await wsExport(node, sessionId);
    const slot = await slotOf(cluster, store.keys(sessionId).log);
    const source = await cluster.masterOf(slot);
    const target = (await cluster.topology()).find((other) => other.role === 'master' && other.id !== source.id)!;
    const during: unknown[] = [];
    await cluster.migrateSlot(slot, target, async () => {
      // Half-moved: some of the session's keys are on the target (ASK, TRYAGAIN for the multi-key scripts).
      during.push(
        await archiveSession({ store, archive, sessionId, token: `t-${randomUUID()}`, segmentEvents: 40 }).catch(
          (error: unknown) => error,
        ),
      );
    });
    const [outcome] = during;
    if (outcome instanceof Error) {
      expect(outcome).toMatchObject({ code: expect.stringMatching(/^(STORE_UNAVAILABLE|ARCHIVE_ABORTED)$/) });
    } else expect(outcome).toMatchObject({ status: 'archived' });
    // Whatever it did, the reads are whole, and a run after the migration leaves the session archived.
    expect(await httpExport(node, sessionId, 50)).toEqual(pages);
    const after = await archiveSession({ store, archive, sessionId, token: `t-${randomUUID()}` });
    expect(['archived', 'idle']).toContain(after.status);
    expect(await store.head(sessionId)).toMatchObject({ firstSeq: JSON.parse(catchUp).length });
    expect(await httpExport(node, sessionId, 50)).toEqual(pages);
    // The first subscribe after the move may time out (STORE_UNAVAILABLE: ioredis learns the slot's new master from
    // the MOVED it gets and never settles that SSUBSCRIBE; see server/store/redis/redis-pubsub.ts); a retry reads.
    await expect
      .poll(async () => ((await wsCatchUp(node, sessionId)).errors as { code?: string }[]).map((error) => error.code), {
        timeout: 30_000,
        interval: 50,
      })
      .toEqual([]);
    expect(await wsExport(node, sessionId)).toBe(catchUp);
  });
});
