// The EventStore conformance suite, archive lease: one archiver per session across nodes. A lease is taken by one
// token at a time (`SET NX PX` on Redis, a Cluster slot of the session's tag), renewed and released only by its
// holder, and lapses when nobody renews it. Two store instances on one backend play two hub nodes.
import { randomUUID } from 'node:crypto';
import { describe, expect, vi } from 'vitest';
import type { EventStore } from '../../server/store/event-store.ts';
import { clusterBackend, memoryBackend, redisBackend, type BackendTest } from './conformance-backends.ts';
import { WAIT } from './conformance-helpers.ts';

function describeArchiveLeaseConformance(name: string, it: BackendTest): void {
  describe(`EventStore conformance, archive lease: ${name}`, () => {
    let a: EventStore;
    let b: EventStore;
    const newSession = (): string => `lease-${randomUUID()}`;

    it.beforeAll(async ({ backend }) => {
      a = await backend.open();
      b = await backend.open();
    });

    it('one holder at a time across nodes; only the holder renews and releases', async () => {
      const sessionId = newSession();
      expect(await a.archiveLease.acquire(sessionId, 'node-a', 60_000)).toBe(true);
      expect(await b.archiveLease.acquire(sessionId, 'node-b', 60_000)).toBe(false);
      expect(await a.archiveLease.acquire(sessionId, 'node-a', 60_000)).toBe(false); // not re-entrant
      expect(await b.archiveLease.renew(sessionId, 'node-b', 60_000)).toBe(false);
      expect(await b.archiveLease.release(sessionId, 'node-b')).toBe(false);
      expect(await b.archiveLease.renew(sessionId, 'node-a', 60_000)).toBe(true); // the token holds it, not the node
      expect(await b.archiveLease.acquire(sessionId, 'node-b', 60_000)).toBe(false);
      expect(await a.archiveLease.release(sessionId, 'node-a')).toBe(true);
      expect(await a.archiveLease.release(sessionId, 'node-a')).toBe(false);
      expect(await b.archiveLease.acquire(sessionId, 'node-b', 60_000)).toBe(true);
      expect(await a.archiveLease.renew(sessionId, 'node-a', 60_000)).toBe(false);
      // Leases of other sessions are their own.
      expect(await a.archiveLease.acquire(newSession(), 'node-a', 60_000)).toBe(true);
    });

    it('a lease nobody renews lapses, and another token takes it; the old holder can no longer renew it', async () => {
      const sessionId = newSession();
      expect(await a.archiveLease.acquire(sessionId, 'dead-node', 30)).toBe(true);
      await vi.waitFor(async () => expect(await b.archiveLease.acquire(sessionId, 'node-b', 60_000)).toBe(true), WAIT);
      expect(await a.archiveLease.renew(sessionId, 'dead-node', 60_000)).toBe(false);
      expect(await a.archiveLease.release(sessionId, 'dead-node')).toBe(false);
      expect(await b.archiveLease.release(sessionId, 'node-b')).toBe(true);
    });

    it('a renewed lease outlives its first time', async () => {
      const sessionId = newSession();
      expect(await a.archiveLease.acquire(sessionId, 'node-a', 200)).toBe(true);
      expect(await a.archiveLease.renew(sessionId, 'node-a', 60_000)).toBe(true);
      // Once the first 200 ms are over (b's own lease on another session lapsing marks the time), a still holds it.
      const marker = newSession();
      expect(await b.archiveLease.acquire(marker, 'marker', 250)).toBe(true);
      await vi.waitFor(async () => expect(await b.archiveLease.acquire(marker, 'marker-2', 60_000)).toBe(true), WAIT);
      expect(await b.archiveLease.acquire(sessionId, 'node-b', 60_000)).toBe(false);
    });

    it('bad tokens, times and session ids are BAD_REQUEST', async () => {
      const sessionId = newSession();
      await expect(a.archiveLease.acquire(sessionId, '', 1000)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
      await expect(a.archiveLease.acquire(sessionId, 'x'.repeat(201), 1000)).rejects.toMatchObject({
        code: 'BAD_REQUEST',
      });
      for (const ttl of [0, -1, 1.5, Number.NaN, 86_400_001]) {
        await expect(a.archiveLease.acquire(sessionId, 'n', ttl)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
        await expect(a.archiveLease.renew(sessionId, 'n', ttl)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
      }
      await expect(a.archiveLease.acquire('x'.repeat(10_000), 'n', 10)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
      await expect(a.archiveLease.release('bad{id}', 'n')).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    });
  });
}

describeArchiveLeaseConformance('memory', memoryBackend);
describeArchiveLeaseConformance('redis', redisBackend);
describeArchiveLeaseConformance('redis cluster', clusterBackend);
