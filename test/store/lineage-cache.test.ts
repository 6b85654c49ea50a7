// The lineage layer's cache on its own (server/store/lineage/lineage-cache.ts), on a memory engine: a fact is
// served for the epoch it was read in only, and the cache holds a bounded number of sessions.
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { LineageCache } from '../../server/store/lineage/lineage-cache.ts';
import { MemoryStore } from '../../server/store/memory/memory-store.ts';
import { committed, drafts } from './conformance-helpers.ts';

const store = new MemoryStore();
afterAll(() => store.close());

async function forkOf(parentId: string, childId: string): Promise<string> {
  const parent = committed(await store.commit({ sessionId: parentId, expectedSeq: 0, events: drafts(3) }));
  const { epoch } = await store.head(parentId);
  expect(parent).toHaveLength(3);
  const made = await store.forks.create({ parentId, parentEpoch: epoch, atSeq: 1, childId, events: [] });
  if (made.status !== 'forked') throw new Error(`expected a fork, got ${made.status}`);
  return made.epoch;
}

describe('LineageCache', () => {
  it('serves a lineage for the epoch it was read in, and reads it again for another', async () => {
    const cache = new LineageCache(store.forks, store.redactions);
    const parent = `lc-${randomUUID()}`;
    const epoch = await forkOf(parent, `${parent}-c`);
    const read = await cache.lineage(`${parent}-c`, epoch);
    expect(read).toEqual({ epoch, lineage: expect.objectContaining({ parent, forkSeq: 1 }) });
    expect(cache.guess(`${parent}-c`)).toEqual(read.lineage);

    // Deleted and made again from another parent: the old epoch's entry is not served for the new one.
    await store.deleteSession(`${parent}-c`);
    const other = `lc-${randomUUID()}`;
    const again = await forkOf(other, `${parent}-c`);
    expect(await cache.lineage(`${parent}-c`, again)).toEqual({
      epoch: again,
      lineage: expect.objectContaining({ parent: other }),
    });
    expect(cache.guess(`${parent}-c`)).toMatchObject({ parent: other });
  });

  it('keeps at most its size of sessions, the least recently used dropped first', async () => {
    const cache = new LineageCache(store.forks, store.redactions, 2);
    const ids = [randomUUID(), randomUUID(), randomUUID()].map((id) => `lc-${id}`);
    const epochs = [];
    for (const id of ids) epochs.push(await forkOf(id, `${id}-c`));
    await cache.lineage(`${ids[0]}-c`, epochs[0]);
    await cache.lineage(`${ids[1]}-c`, epochs[1]);
    await cache.lineage(`${ids[0]}-c`, epochs[0]); // used again: the second is now the least recent
    await cache.lineage(`${ids[2]}-c`, epochs[2]);
    expect(cache.guess(`${ids[0]}-c`)).toMatchObject({ parent: ids[0] });
    expect(cache.guess(`${ids[1]}-c`)).toBeUndefined();
    expect(cache.guess(`${ids[2]}-c`)).toMatchObject({ parent: ids[2] });
  });
});
