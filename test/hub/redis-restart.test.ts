import { describe, expect, onTestFinished, vi } from 'vitest';
import type { ServerMessage } from '../../shared/protocol.ts';
import { test } from '../helpers/fixtures.ts';
import type { TestHub } from '../helpers/hub.ts';
import { range, RawHubClient } from '../helpers/raw-hub-client.ts';

const note = (n: number) => ({ type: 'test/note', data: { n } });

async function readyStatus(hub: TestHub): Promise<number> {
  return (await fetch(`${hub.url}/readyz`)).status;
}

/** Append until the store takes it (STORE_UNAVAILABLE meanwhile), waiting between tries; returns the ack. */
async function appendWhenStoreIsBack(
  client: RawHubClient,
  append: { sessionId: string; events: unknown[]; idempotencyKey: string },
): Promise<ServerMessage> {
  let reply: ServerMessage | undefined;
  await vi.waitFor(
    async () => {
      reply = await client.request({ type: 'append', ...append });
      if (reply.type === 'error') expect(reply).toMatchObject({ code: 'STORE_UNAVAILABLE' });
      expect(reply.type).toBe('ack');
    },
    { timeout: 15_000, interval: 100 },
  );
  return reply!;
}

/** Each block of options gets a redis-server of its own (file-scoped fixtures, test/helpers/fixtures.ts). */
const base = test
  .extend('keyPrefix', { scope: 'file' }, 'rr:')
  .extend('redisStoreOptions', { scope: 'file' }, { onError: (): void => undefined });
const durable = base.extend('redisOptions', { scope: 'file' }, { appendOnly: true, appendFsync: 'always' as const });
const volatile = base.extend('redisOptions', { scope: 'file' }, { appendOnly: false });

/** A writer and a watcher connected to `hub`, closed when the test ends. */
async function connectPair(hub: TestHub): Promise<{ writer: RawHubClient; watcher: RawHubClient }> {
  const writer = await RawHubClient.connect(hub.wsUrl);
  onTestFinished(async () => void (await writer.close()));
  const watcher = await RawHubClient.connect(hub.wsUrl);
  onTestFinished(async () => void (await watcher.close()));
  return { writer, watcher };
}

describe('hub: Redis killed and restarted', () => {
  durable(
    'with AOF: appends fail fast with STORE_UNAVAILABLE while it is down, nothing is lost, the watcher resumes',
    async ({ redis, redisHub: hub }) => {
      const { writer, watcher } = await connectPair(hub);
      const sessionId = 'aof';
      const subscribed = await watcher.request({ type: 'subscribe', sessionId });
      await writer.request({ type: 'append', sessionId, events: range(0, 9).map(note) });
      await watcher.waitFor((m) => m.type === 'events' && m.events.some((event) => event.seq === 9));

      await redis.kill();
      const refused = await writer.request({ type: 'append', sessionId, events: [note(99)] });
      expect(refused).toMatchObject({ type: 'error', code: 'STORE_UNAVAILABLE', sessionId });
      expect(await readyStatus(hub)).toBe(503);

      await redis.restart();
      await vi.waitFor(async () => expect(await readyStatus(hub)).toBe(200), { timeout: 15_000, interval: 100 });
      // The command connection may need a moment after /readyz to be usable again: retry (with a key, so a retry
      // of an append that did commit is answered as a duplicate).
      const ack = await appendWhenStoreIsBack(writer, {
        sessionId,
        events: range(10, 14).map(note),
        idempotencyKey: 'k1',
      });
      expect(ack).toMatchObject({ type: 'ack', firstSeq: 10, lastSeq: 14 });
      await watcher.waitFor((m) => m.type === 'events' && m.events.some((event) => event.seq === 14));
      expect(watcher.seqs(sessionId)).toEqual(range(0, 14));
      expect(watcher.ofType('reset')).toEqual([]);
      // Subscribed before the first write (no epoch yet): the first events frame told the epoch, which stayed.
      expect(subscribed).toMatchObject({ type: 'subscribed', epoch: '' });
      const told = watcher.ofType('events').filter((m) => m.epoch !== undefined);
      expect(told.map((m) => m.epoch)).toEqual([ack.type === 'ack' && ack.epoch]);
    },
  );

  volatile(
    'without persistence: the epoch changes and the watcher gets reset, then the new log from seq 0',
    async ({ redis, redisHub: hub }) => {
      const { writer, watcher } = await connectPair(hub);
      const sessionId = 'volatile';
      const subscribed = await watcher.request({ type: 'subscribe', sessionId });
      await writer.request({ type: 'append', sessionId, events: range(0, 4).map(note) });
      await watcher.waitFor((m) => m.type === 'events' && m.events.some((event) => event.seq === 4));

      await redis.kill();
      await redis.restart();
      await vi.waitFor(async () => expect(await readyStatus(hub)).toBe(200), { timeout: 15_000, interval: 100 });
      const reset = await watcher.waitFor((m) => m.type === 'reset', { timeoutMs: 20_000 });
      // The data is gone with its epoch: the session has none ('') until the next commit creates one.
      expect(subscribed).toMatchObject({ type: 'subscribed', epoch: '' });
      expect(reset).toMatchObject({ type: 'reset', sessionId, epoch: '' });

      const ack = await appendWhenStoreIsBack(writer, {
        sessionId,
        events: range(100, 102).map(note),
        idempotencyKey: 'k2',
      });
      expect(ack).toMatchObject({ type: 'ack', firstSeq: 0, lastSeq: 2 });
      await watcher.waitFor((m) => m.type === 'events' && m.events.some((event) => event.seq === 2), {
        from: watcher.messages.indexOf(reset),
      });
      expect(watcher.seqs(sessionId)).toEqual([0, 1, 2]);
      expect(watcher.events(sessionId).map((event) => (event.data as { n: number }).n)).toEqual([100, 101, 102]);
      // The first events after the reset bring the new epoch.
      const told = watcher.ofType('events').filter((m) => m.epoch !== undefined);
      expect(told).toHaveLength(2);
      expect(told.at(-1)!.epoch).toBe(ack.type === 'ack' && ack.epoch);
      expect(told.at(-1)!.epoch).not.toBe(told[0]!.epoch);
    },
  );
});
