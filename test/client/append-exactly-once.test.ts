import { describe, expect } from 'vitest';
import { it } from '../helpers/fixtures.ts';

const user = (content: string) => ({ type: 'user/message', data: { role: 'user', content } });

describe('append', () => {
  it('resolves with the committed events: seqs, commit time, surfaceOp defaulted', async ({ memoryHubClient: hub }) => {
    const events = await hub.client.append('append/1', [user('a'), { type: 'turn/start', data: { turn: 1 } }]);
    expect(events).toHaveLength(2);
    expect(events.map((event) => event.seq)).toEqual([0, 1]);
    expect(events[0]).toMatchObject({ type: 'user/message', surfaceOp: 'append' });
    expect(events[1]).not.toHaveProperty('surfaceOp');
    expect(events[0]!.time).toBe(events[1]!.time);
    expect((await hub.store.read('append/1', 0, 10)).map((event) => event.type)).toEqual([
      'user/message',
      'turn/start',
    ]);
  });

  it('a retry with the same idempotency key commits once and returns the original seqs', async ({
    memoryHubClient: hub,
  }) => {
    const first = await hub.client.append('append/2', user('once'), { idempotencyKey: 'key-1' });
    await hub.client.append('append/2', user('other'));
    const retry = await hub.client.append('append/2', user('once'), { idempotencyKey: 'key-1' });
    expect(retry).toEqual(first);
    expect(await hub.store.read('append/2', 0, 10)).toHaveLength(2);
  });

  it('refuses a bad idempotency key locally with BAD_REQUEST; the append made right after it still commits', async ({
    memoryHubClient: hub,
  }) => {
    // The hub takes 1 to 256 UTF-16 units; a lone surrogate would not survive UTF-8. Refused at the hub instead,
    // the key would also fail the append pipelined behind it, which names it as `after`.
    for (const key of ['', 'k'.repeat(257), 'bad\uD800key', '\uDC00']) {
      const refused = hub.client.append('append/keys', user('refused'), { idempotencyKey: key });
      const next = hub.client.append('append/keys', user(`after ${key.length}`));
      expect(hub.client.pendingAppends).toBe(1);
      await expect(refused).rejects.toMatchObject({ code: 'BAD_REQUEST', sessionId: 'append/keys' });
      await next;
    }
    await hub.client.append('append/keys', user('longest key'), { idempotencyKey: `😀${'k'.repeat(254)}` });
    const log = await hub.store.read('append/keys', 0, 10);
    expect(log.map((event) => (event.data as { content: string }).content)).toEqual([
      'after 0',
      'after 257',
      'after 7',
      'after 1',
      'longest key',
    ]);
  });

  it('rejects a stale expectedSeq with SEQ_CONFLICT (and the head) and an invalid event with its code', async ({
    memoryHubClient: hub,
  }) => {
    await hub.client.append('append/3', user('a'));
    await expect(hub.client.append('append/3', user('b'), { expectedSeq: 0 })).rejects.toMatchObject({
      code: 'SEQ_CONFLICT',
      sessionId: 'append/3',
      details: { headSeq: 0 },
    });
    await expect(
      hub.client.append('append/3', {
        type: 'user/message',
        data: { role: 'user', content: 'x' },
        surfaceOp: { op: 'replace', startSeq: 7, endSeq: 7 },
      }),
    ).rejects.toMatchObject({ code: 'SURFACE_VIOLATION' });
    // The SDK's types refuse it at compile time; sent anyway (as untyped code could) to check the hub's answer.
    // @ts-expect-error turn/start needs a numeric turn
    const mistyped = hub.client.append('append/3', { type: 'turn/start', data: { turn: 'one' } });
    await expect(mistyped).rejects.toMatchObject({ code: 'INVALID_EVENT' });
    await expect(hub.client.append('append/3', { type: 'x/y', data: { bad: Number.NaN } })).rejects.toMatchObject({
      code: 'INVALID_JSON',
    });
    expect(await hub.store.read('append/3', 0, 10)).toHaveLength(1);
  });
});
