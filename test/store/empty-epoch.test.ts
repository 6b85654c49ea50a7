import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { EventStore } from '../../server/store/event-store.ts';
import { MemoryBackend } from '../../server/store/memory/memory-backend.ts';
import { MemoryStore } from '../../server/store/memory/memory-store.ts';
import { storeEngines, type Engine } from '../helpers/engines.ts';

const WAIT = { timeout: 10_000, interval: 20 };
const TTL_MS = 300;

/** Wait until the epoch of an empty session `witness`, read now, has lapsed: at least TTL_MS from now. */
async function waitForLapse(store: EventStore, witness: string): Promise<void> {
  const { epoch } = await store.head(witness);
  await vi.waitFor(async () => expect((await store.head(witness)).epoch).not.toBe(epoch), WAIT);
}

/** Both engines: a session nobody wrote is forgotten after `emptySessionEpochTtlMs`; a written one never is. */
describe.each(storeEngines('ee2:', { emptySessionEpochTtlMs: TTL_MS }))(
  '$name store: the epoch of a session nobody wrote lapses',
  ({ open }) => {
    let engine: Engine;
    let store: EventStore;
    beforeAll(async () => {
      engine = await open();
      store = engine.store;
    });
    afterAll(async () => {
      await store.close();
      await engine.stop();
    });

    it('gives a read session a new epoch once its lifetime is over, and drops it from the listing', async () => {
      const { epoch, headSeq } = await store.head('lapse/ghost');
      expect(headSeq).toBe(-1);
      expect(await store.listSessions('lapse/')).toContain('lapse/ghost');
      await vi.waitFor(async () => expect(await store.listSessions('lapse/')).not.toContain('lapse/ghost'), WAIT);
      const again = await store.head('lapse/ghost');
      expect(again).toMatchObject({ headSeq: -1 });
      expect(again.epoch).not.toBe(epoch);
    });

    it('keeps the epoch readers were told once an event is written, past the lifetime', async () => {
      const { epoch } = await store.head('lapse/born');
      const committed = await store.commit({
        sessionId: 'lapse/born',
        expectedSeq: 0,
        events: [{ type: 'test/e', data: { n: 1 } }],
      });
      expect(committed).toMatchObject({ status: 'committed', epoch });
      await waitForLapse(store, 'lapse/witness-1');
      expect(await store.head('lapse/born')).toEqual({ epoch, headSeq: 0 });
      expect((await store.read('lapse/born', 0, 10)).map((event) => event.data)).toEqual([{ n: 1 }]);
    });

    it('lets a refused commit (nothing written) lapse like a read', async () => {
      const probe = await store.commit({
        sessionId: 'lapse/probed',
        expectedSeq: 5,
        events: [{ type: 'test/e', data: {} }],
        idempotencyKey: 'k',
      });
      expect(probe.status).toBe('conflict');
      const epoch = probe.status === 'conflict' ? probe.epoch : '';
      await vi.waitFor(async () => expect((await store.head('lapse/probed')).epoch).not.toBe(epoch), WAIT);
    });
  },
);

describe('memory engine: lifetime options', () => {
  it('refuses a nonsense lifetime, and one given both to a store and to its shared backend', () => {
    expect(() => new MemoryBackend({ emptySessionEpochTtlMs: 0 })).toThrow(RangeError);
    expect(() => new MemoryStore({ emptySessionEpochTtlMs: 1.5 })).toThrow(RangeError);
    expect(() => new MemoryStore({ backend: new MemoryBackend(), emptySessionEpochTtlMs: 1000 })).toThrow(TypeError);
  });

  it('forgets lapsed empty sessions in a sweep, without them being read again', async () => {
    const backend = new MemoryBackend({ emptySessionEpochTtlMs: 50 });
    for (let index = 0; index < 100; index++) backend.session(`sweep/${index}`);
    const written = backend.session('sweep/written');
    backend.written(written);
    // A new session after the lifetime sweeps the lapsed ones out of the map itself (not only out of listings).
    await vi.waitFor(() => {
      backend.session(`sweep/new-${Date.now()}`);
      expect(backend.size).toBeLessThan(10);
    }, WAIT);
    expect(backend.peek('sweep/written')).toBe(written);
  });
});
