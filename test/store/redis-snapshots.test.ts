import { describe, expect } from 'vitest';
import { MessageProjector, type SessionEvent } from '../../shared/index.ts';
import type { ValidatedDraft } from '../../server/store/event-store.ts';
import type { SessionSnapshot } from '../../server/store/snapshot-store.ts';
import { test as it } from '../helpers/fixtures.ts';

const messages = (count: number): ValidatedDraft[] =>
  Array.from({ length: count }, (_, index) => ({
    type: 'user/message',
    data: { role: 'user', content: `m${index}` },
    surfaceOp: 'append',
  }));

function snapshotOf(epoch: string, events: readonly SessionEvent[]): SessionSnapshot {
  const projector = new MessageProjector();
  projector.applyAll(events);
  return { epoch, seq: events.length - 1, state: projector.exportState() };
}

describe('RedisStore snapshots: what Redis holds is verified before it is served', () => {
  it('a snapshot with bytes flipped in Redis reads as corrupt, and a rebuild at the same seq replaces it', async ({
    redisStore,
    admin,
  }) => {
    const result = await redisStore.commit({ sessionId: 'flipped', expectedSeq: 0, events: messages(4) });
    if (result.status !== 'committed') throw new Error(result.status);
    const snapshot = snapshotOf(result.epoch, result.events);
    expect(await redisStore.snapshots.put('flipped', snapshot)).toBe('written');
    const key = redisStore.keys('flipped').snapshot;
    const value = await admin.hgetBuffer(key, 'v');
    value![value!.length - 3]! ^= 0x20;
    await admin.hset(key, 'v', value!);
    expect(await redisStore.snapshots.get('flipped')).toMatchObject({ status: 'corrupt', reason: 'checksum mismatch' });
    expect(await redisStore.snapshots.put('flipped', snapshot)).toBe('written');
    expect(await redisStore.snapshots.get('flipped')).toEqual({ status: 'found', snapshot, headSeq: 3 });
  });

  it('a snapshot past the head (events lost in a failover) is not served', async ({ redisStore, admin }) => {
    const result = await redisStore.commit({ sessionId: 'lost-tail', expectedSeq: 0, events: messages(5) });
    if (result.status !== 'committed') throw new Error(result.status);
    expect(await redisStore.snapshots.put('lost-tail', snapshotOf(result.epoch, result.events))).toBe('written');
    await admin.xdel(redisStore.keys('lost-tail').log, '3-1', '4-1');
    expect(await redisStore.snapshots.get('lost-tail')).toMatchObject({ status: 'none', reason: 'beyond-head' });
  });

  it('keeps the snapshot and its lease under the session hash tag', ({ redisStore }) => {
    const keys = redisStore.keys('tagged');
    expect(keys.snapshot).toBe('test:{tagged}:snap');
    expect(keys.snapshotLease).toBe('test:{tagged}:snaplease');
  });
});
