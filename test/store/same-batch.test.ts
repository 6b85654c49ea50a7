import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../shared/index.ts';
import { batchDigest } from '../../server/store/batch-digest.ts';
import type { ValidatedDraft } from '../../server/store/event-store.ts';
import { RedisStore } from '../../server/store/redis/redis-store.ts';
import { isSameBatch, jsonEqual } from '../../server/store/same-batch.ts';
import { RedisServer } from '../helpers/redis-server.ts';

const stored = (drafts: readonly ValidatedDraft[], firstSeq = 0): SessionEvent[] =>
  drafts.map((draft, index) => ({ seq: firstSeq + index, time: 1, ...draft }) as SessionEvent);

describe('same batch: a retried append compared with the events its key committed', () => {
  it('compares JSON deeply, ignoring object key order but not array order or types', () => {
    expect(jsonEqual({ a: 1, b: [1, { c: 'x' }] }, { b: [1, { c: 'x' }], a: 1 })).toBe(true);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
    expect(jsonEqual({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(jsonEqual({ a: 1, b: undefined }, { a: 1, c: undefined })).toBe(false);
    expect(jsonEqual({ a: '1' }, { a: 1 })).toBe(false);
    expect(jsonEqual(null, {})).toBe(false);
    expect(jsonEqual([], {})).toBe(false);
    expect(jsonEqual(undefined, undefined)).toBe(true);
  });

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

describe('RedisStore: keys remembered with a digest (written by earlier versions)', () => {
  let server: RedisServer;
  let store: RedisStore;
  let admin: Redis;
  beforeAll(async () => {
    server = await RedisServer.start();
    store = await RedisStore.open({ url: server.url, keyPrefix: 'legacy:' });
    admin = new Redis(server.url);
  });
  afterAll(async () => {
    admin.disconnect();
    await store.close();
    await server.stop();
  });

  it('still answers duplicate for the same batch and a mismatch for another one', async () => {
    const sessionId = 'legacy';
    const batch: ValidatedDraft[] = [{ type: 'test/event', data: { n: 1 } }];
    const first = await store.commit({ sessionId, expectedSeq: 0, events: batch });
    if (first.status !== 'committed') throw new Error(first.status);
    const { time } = first.events[0]!;
    await admin.hset(store.keys(sessionId).idempotency, 'old-key', `0:0:${time}:${batchDigest(batch)}`);
    const retry = await store.commit({ sessionId, expectedSeq: 1, events: batch, idempotencyKey: 'old-key' });
    expect(retry).toMatchObject({ status: 'duplicate', firstSeq: 0, lastSeq: 0, time });
    const other = await store.commit({
      sessionId,
      expectedSeq: 1,
      events: [{ type: 'test/event', data: { n: 2 } }],
      idempotencyKey: 'old-key',
    });
    expect(other).toMatchObject({ status: 'idempotency-mismatch', firstSeq: 0, lastSeq: 0 });
  });
});
