import { describe, expect } from 'vitest';
import { NO_EPOCH, type EventStore } from '../../server/store/event-store.ts';
import { storeEngines } from '../helpers/engines.ts';
import { test } from '../helpers/fixtures.ts';
import { readEventPage } from '../../server/store/codec/stored-events.ts';

const event = (n: number) => ({ type: 'test/e', data: { n } });

const engines = storeEngines('reads-nothing:').map((engine) => ({
  name: engine.name,
  it: test.extend('engine', { scope: 'file' }, engine),
}));

/** Both engines: a session gets its epoch with its first events; reads and refused commits create nothing. */
describe.each(engines)('$name store: only a commit that writes creates an epoch', ({ it }) => {
  let store: EventStore;
  it.beforeAll(({ engineStore }) => {
    store = engineStore;
  });

  it('answers every read of an unknown session as empty, without an epoch, and lists nothing', async () => {
    expect(await store.head('ghost/a')).toEqual({ epoch: NO_EPOCH, headSeq: -1 });
    expect(await store.read('ghost/a', 0, 10)).toEqual([]);
    expect(await readEventPage(store, 'ghost/a', 0, 10)).toEqual({ epoch: undefined, events: [] });
    expect(await store.readStoredPage('ghost/a', 0, 10)).toEqual({
      epoch: undefined,
      firstSeq: 0,
      bodies: [],
      times: [],
    });
    expect(
      await store.lookupKeys({ sessionId: 'ghost/a', batches: [{ events: [event(1)], idempotencyKey: 'k' }] }),
    ).toEqual({ epoch: undefined, keys: [undefined] });
    const refused = await store.commit({
      sessionId: 'ghost/a',
      expectedSeq: 3,
      events: [event(1)],
      idempotencyKey: 'k',
    });
    expect(refused).toEqual({ status: 'conflict', epoch: NO_EPOCH, headSeq: -1 });
    expect(await store.listSessions('ghost/')).toEqual([]);
  });

  it('gives a session a random epoch with its first commit, keeps it, and drops it with the session', async () => {
    const first = await store.commit({
      sessionId: 'born/a',
      expectedSeq: 0,
      expectedEpoch: NO_EPOCH,
      events: [event(1)],
    });
    if (first.status !== 'committed') throw new Error(first.status);
    expect(first.epoch).not.toBe(NO_EPOCH);
    expect(await store.head('born/a')).toEqual({ epoch: first.epoch, headSeq: 0 });
    const second = await store.commit({
      sessionId: 'born/a',
      expectedSeq: 1,
      expectedEpoch: first.epoch,
      events: [event(2)],
    });
    expect(second).toMatchObject({ status: 'committed', epoch: first.epoch });
    expect(await store.listSessions('born/')).toEqual(['born/a']);
    // A batch validated before the first commit (no epoch) is positioned by expectedSeq alone.
    const late = await store.commit({
      sessionId: 'born/a',
      expectedSeq: 0,
      expectedEpoch: NO_EPOCH,
      events: [event(3)],
    });
    expect(late).toEqual({ status: 'conflict', epoch: first.epoch, headSeq: 1 });
    expect(await store.deleteSession('born/a')).toBe(true);
    expect(await store.head('born/a')).toEqual({ epoch: NO_EPOCH, headSeq: -1 });
    // A batch validated in the deleted epoch is refused; the next first commit starts a new epoch.
    const stale = await store.commit({
      sessionId: 'born/a',
      expectedSeq: 0,
      expectedEpoch: first.epoch,
      events: [event(4)],
    });
    expect(stale).toEqual({ status: 'conflict', epoch: NO_EPOCH, headSeq: -1 });
    const reborn = await store.commit({ sessionId: 'born/a', expectedSeq: 0, events: [event(5)] });
    expect(reborn.status === 'committed' && reborn.epoch !== first.epoch && reborn.epoch !== NO_EPOCH).toBe(true);
  });
});
