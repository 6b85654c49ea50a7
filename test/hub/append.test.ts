import { afterAll, describe, expect } from 'vitest';
import type { EventStore } from '../../server/store/event-store.ts';
import type { TestHub } from '../helpers/hub.ts';
import { range, RawHubClient } from '../helpers/raw-hub-client.ts';
import { storeEngines } from '../helpers/engines.ts';
import { test } from '../helpers/fixtures.ts';

const user = (content: string) => ({ type: 'user/message', data: { role: 'user', content } });

const engines = storeEngines('ap:').map((engine) => ({
  name: engine.name,
  it: test
    .extend('engine', { scope: 'file' }, engine)
    .extend('hubConfig', { scope: 'file' }, { limits: { maxEventsPerAppend: 5, maxEventBytes: 2000 } }),
}));

describe.each(engines)('hub: append over the socket ($name engine)', ({ it }) => {
  let hub: TestHub;
  let client: RawHubClient;
  let store: EventStore;
  it.beforeAll(async ({ engineHub }) => {
    ({ store, hub } = engineHub);
    client = await RawHubClient.connect(hub.wsUrl);
  });
  afterAll(async () => {
    await client.close();
  });

  it('commits a batch and acks its seqs, commit time and epoch', async () => {
    const ack = await client.request({ type: 'append', sessionId: 'a1', events: [user('one'), user('two')] });
    const head = await store.head('a1');
    expect(ack).toMatchObject({ type: 'ack', sessionId: 'a1', epoch: head.epoch, firstSeq: 0, lastSeq: 1 });
    expect(ack.type === 'ack' && ack.duplicate).toBe(false);
    const stored = await store.read('a1', 0, 10);
    expect(stored.map((event) => [event.seq, event.surfaceOp])).toEqual([
      [0, 'append'],
      [1, 'append'],
    ]);
    expect(ack.type === 'ack' && ack.time).toBe(stored[0]!.time);
  });

  it('rejects an invalid event with the core code, path and seq, and leaves the log unchanged', async () => {
    await client.request({ type: 'append', sessionId: 'a2', events: [user('x')] });
    const reply = await client.request({
      type: 'append',
      sessionId: 'a2',
      events: [user('ok'), { type: 'user/message', data: { role: 'user', content: 'y' }, surfaceOp: 'zap' }],
    });
    expect(reply).toMatchObject({ type: 'error', code: 'SURFACE_VIOLATION', sessionId: 'a2', details: { seq: 2 } });
    const badJson = await client.request({
      type: 'append',
      sessionId: 'a2',
      events: [{ type: 'x/y', data: { nested: [1, { deep: Number.NaN }] } }],
    });
    expect(badJson).toMatchObject({ type: 'error', code: 'INVALID_JSON', details: { path: 'data.nested[1].deep' } });
    const badShape = await client.request({
      type: 'append',
      sessionId: 'a2',
      events: [{ type: 'turn/start', data: {} }],
    });
    expect(badShape).toMatchObject({ type: 'error', code: 'INVALID_EVENT', details: { seq: 1 } });
    expect((await store.head('a2')).headSeq).toBe(0);
  });

  it('reports an expectedSeq that is not the head + 1 as SEQ_CONFLICT with the head', async () => {
    await client.request({ type: 'append', sessionId: 'a3', events: [user('1'), user('2'), user('3')] });
    const stale = await client.request({ type: 'append', sessionId: 'a3', events: [user('4')], expectedSeq: 1 });
    expect(stale).toMatchObject({ type: 'error', code: 'SEQ_CONFLICT', details: { headSeq: 2 } });
    const ahead = await client.request({ type: 'append', sessionId: 'a3', events: [user('4')], expectedSeq: 9 });
    expect(ahead).toMatchObject({ type: 'error', code: 'SEQ_CONFLICT', details: { headSeq: 2 } });
    const right = await client.request({ type: 'append', sessionId: 'a3', events: [user('4')], expectedSeq: 3 });
    expect(right).toMatchObject({ type: 'ack', firstSeq: 3, lastSeq: 3 });
  });

  it('commits a retried append with the same idempotency key once and acks the original seqs', async () => {
    const batch = { type: 'append', sessionId: 'a4', events: [user('a'), user('b')], idempotencyKey: 'k1' } as const;
    const first = await client.request(batch);
    await client.request({ type: 'append', sessionId: 'a4', events: [user('c')] });
    const retry = await client.request(batch);
    expect(first).toMatchObject({ type: 'ack', firstSeq: 0, lastSeq: 1, duplicate: false });
    expect(retry).toMatchObject({ type: 'ack', firstSeq: 0, lastSeq: 1, duplicate: true });
    expect(retry.type === 'ack' && first.type === 'ack' && retry.time).toBe(first.type === 'ack' && first.time);
    // Also when the retry carries the original (now stale) expectedSeq.
    const retryWithSeq = await client.request({ ...batch, expectedSeq: 0 });
    expect(retryWithSeq).toMatchObject({ type: 'ack', firstSeq: 0, lastSeq: 1, duplicate: true });
    expect((await store.head('a4')).headSeq).toBe(2);
  });

  it('acks a retried replacement as a duplicate although it would no longer validate', async () => {
    await client.request({ type: 'append', sessionId: 'a5', events: [user('a'), user('b')] });
    const replace = {
      type: 'append',
      sessionId: 'a5',
      idempotencyKey: 'r1',
      events: [{ ...user('ab'), surfaceOp: { op: 'replace', startSeq: 0, endSeq: 1 }, sourceEventSeqs: [0, 1] }],
    } as const;
    expect(await client.request(replace)).toMatchObject({ type: 'ack', firstSeq: 2, duplicate: false });
    expect(await client.request(replace)).toMatchObject({ type: 'ack', firstSeq: 2, lastSeq: 2, duplicate: true });
    const other = await client.request({ ...replace, idempotencyKey: 'r2' });
    expect(other).toMatchObject({ type: 'error', code: 'SURFACE_VIOLATION' });
  });

  it('reports a key reused for a different batch as IDEMPOTENCY_MISMATCH', async () => {
    await client.request({ type: 'append', sessionId: 'a6', events: [user('a')], idempotencyKey: 'same' });
    const reply = await client.request({
      type: 'append',
      sessionId: 'a6',
      events: [user('b')],
      idempotencyKey: 'same',
    });
    expect(reply).toMatchObject({ type: 'error', code: 'IDEMPOTENCY_MISMATCH', details: { firstSeq: 0, lastSeq: 0 } });
  });

  it('enforces the batch and event size limits without writing anything', async () => {
    const many = await client.request({
      type: 'append',
      sessionId: 'a7',
      events: range(1, 6).map((n) => user(`${n}`)),
    });
    expect(many).toMatchObject({ type: 'error', code: 'BATCH_TOO_LARGE', details: { events: 6, limit: 5 } });
    const big = await client.request({ type: 'append', sessionId: 'a7', events: [user('ok'), user('x'.repeat(3000))] });
    expect(big).toMatchObject({ type: 'error', code: 'EVENT_TOO_LARGE', details: { index: 1, limit: 2000 } });
    expect((await store.head('a7')).headSeq).toBe(-1);
  });

  it('keeps appends of one connection to one session in request order', async () => {
    const replies = await Promise.all(
      range(0, 19).map((n) => client.request({ type: 'append', sessionId: 'a8', events: [user(`${n}`)] })),
    );
    expect(replies.map((reply) => reply.type === 'ack' && reply.firstSeq)).toEqual(range(0, 19));
  });
});
