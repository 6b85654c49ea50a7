import { describe, expect, vi } from 'vitest';
import { deriveMessages, MessageProjector } from '../../shared/index.ts';
import type { EventStore } from '../../server/store/event-store.ts';
import { MemoryStore } from '../../server/store/memory/memory-store.ts';
import type { SnapshotRead } from '../../server/store/snapshot-store.ts';
import { startHub } from '../helpers/hub.ts';
import { RawHubClient } from '../helpers/raw-hub-client.ts';
import { test as it } from '../helpers/fixtures.ts';

const WAIT = { timeout: 10_000, interval: 10 };
const user = (content: string) => ({ type: 'user/message', data: { role: 'user', content } });
const policy = { everyEvents: 10, everyBytes: 1_000_000, atTurnEnd: true };

/** The stored snapshot once it covers `seq` or later. */
async function snapshotAtLeast(store: EventStore, sessionId: string, seq: number) {
  let read: SnapshotRead | undefined;
  await vi.waitFor(async () => {
    read = await store.snapshots.get(sessionId);
    expect(read.status === 'found' && read.snapshot.seq >= seq).toBe(true);
  }, WAIT);
  if (read?.status !== 'found') throw new Error('unreachable');
  return read.snapshot;
}

/** The snapshot's messages equal the from-scratch derivation of its prefix of the stored log. */
async function expectExact(store: EventStore, sessionId: string, seq: number): Promise<void> {
  const snapshot = await snapshotAtLeast(store, sessionId, seq);
  const log = await store.read(sessionId, 0, snapshot.seq + 1);
  expect(MessageProjector.fromState(snapshot.state).messages).toEqual(deriveMessages(log));
}

describe('snapshot builder (hub)', () => {
  it('builds a snapshot after every K events, incrementally from the previous one, exact at its seq', async () => {
    const store = new MemoryStore();
    const hub = await startHub({ store, snapshots: policy });
    const client = await RawHubClient.connect(hub.wsUrl);
    try {
      for (let index = 0; index < 12; index++) {
        await client.request({ type: 'append', sessionId: 'k', events: [user(`m${index}`)] });
      }
      await expectExact(store, 'k', 9);
      // A replacement aimed before the snapshot's seq, then more events: the next snapshot is exact too.
      await client.request({
        type: 'append',
        sessionId: 'k',
        events: [
          { ...user('rewritten'), surfaceOp: { op: 'replace', startSeq: 2, endSeq: 4 }, sourceEventSeqs: [2, 3, 4] },
        ],
      });
      for (let index = 0; index < 10; index++) {
        await client.request({ type: 'append', sessionId: 'k', events: [user(`n${index}`)] });
      }
      await expectExact(store, 'k', 19);
      const snapshot = await snapshotAtLeast(store, 'k', 19);
      expect(MessageProjector.fromState(snapshot.state).messages[2]).toEqual({ role: 'user', content: 'rewritten' });
    } finally {
      await client.close();
      await hub.close();
      await store.close();
    }
  });

  it('builds one at a turn end', async () => {
    const store = new MemoryStore();
    const hub = await startHub({ store, snapshots: policy });
    const client = await RawHubClient.connect(hub.wsUrl);
    try {
      await client.request({
        type: 'append',
        sessionId: 't',
        events: [
          { type: 'turn/start', data: { turn: 1 } },
          user('hi'),
          { type: 'turn/end', data: { turn: 1, reason: { kind: 'completed' } } },
        ],
      });
      await expectExact(store, 't', 2);
    } finally {
      await client.close();
      await hub.close();
      await store.close();
    }
  });

  it('a failing snapshot write never fails an append: it is counted and the appends are acked', async () => {
    const store = new MemoryStore();
    const put = vi.spyOn(store.snapshots, 'put').mockRejectedValue(new Error('snapshot store down'));
    const hub = await startHub({ store, snapshots: { ...policy, everyEvents: 1 } });
    const client = await RawHubClient.connect(hub.wsUrl);
    try {
      for (let index = 0; index < 5; index++) {
        const ack = await client.request({ type: 'append', sessionId: 'f', events: [user(`m${index}`)] });
        expect(ack).toMatchObject({ type: 'ack', firstSeq: index });
      }
      await vi.waitFor(async () => {
        const metric = await hub.hub.metrics.snapshotBuilds.get();
        const failed = metric.values.find((value) => value.labels['result'] === 'failed')?.value ?? 0;
        expect(failed).toBeGreaterThan(0);
      }, WAIT);
      expect(put).toHaveBeenCalled();
      expect((await store.head('f')).headSeq).toBe(4);
    } finally {
      await client.close();
      await hub.close();
      await store.close();
    }
  });

  it('rebuilds a corrupt snapshot from the log, counting it', async () => {
    const store = new MemoryStore();
    const hub = await startHub({ store, snapshots: policy });
    const client = await RawHubClient.connect(hub.wsUrl);
    try {
      for (let index = 0; index < 10; index++) {
        await client.request({ type: 'append', sessionId: 'c', events: [user(`m${index}`)] });
      }
      await snapshotAtLeast(store, 'c', 9);
      const bytes = store.backend.snapshots.get('c')!;
      const spoiled = Uint8Array.from(bytes);
      spoiled[spoiled.length - 2]! ^= 0x01;
      store.backend.snapshots.set('c', spoiled);
      expect(await store.snapshots.get('c')).toMatchObject({ status: 'corrupt' });
      for (let index = 0; index < 10; index++) {
        await client.request({ type: 'append', sessionId: 'c', events: [user(`n${index}`)] });
      }
      await expectExact(store, 'c', 19);
      expect((await hub.hub.metrics.snapshotsCorrupt.get()).values[0]?.value).toBe(1);
    } finally {
      await client.close();
      await hub.close();
      await store.close();
    }
  });

  it('off: no snapshot is built', async () => {
    const store = new MemoryStore();
    const hub = await startHub({ store, snapshots: { ...policy, enabled: false, everyEvents: 1 } });
    const client = await RawHubClient.connect(hub.wsUrl);
    try {
      await client.request({ type: 'append', sessionId: 'o', events: [user('a'), user('b')] });
      // close() waits for running builds: with snapshots on (everyEvents 1) one would be stored by now.
      await hub.hub.close();
      expect(await store.snapshots.get('o')).toMatchObject({ status: 'none', reason: 'missing' });
    } finally {
      await client.close();
      await hub.close();
      await store.close();
    }
  });
});
