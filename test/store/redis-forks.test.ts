// The Redis engine's forks beyond the conformance suite: what a fork maker that died between its two steps leaves.
import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import { test } from '../helpers/fixtures.ts';
import { committed, drafts } from './conformance-helpers.ts';

const it = test;

describe('Redis forks: an entry left by a maker that died between its two steps', () => {
  it('blocks deleting the parent while fresh; once stale it is taken out and the parent goes', async ({
    redisStore,
    admin,
  }) => {
    const parent = `stale-${randomUUID()}`;
    const result = await redisStore.commit({ sessionId: parent, expectedSeq: 0, events: drafts(2) });
    committed(result);
    const forks = redisStore.keys(parent).forks;
    // Step 1 of a fork ran (the parent lists it), step 2 never did: no such session exists.
    const [seconds] = (await admin.time()) as [number, number];
    await admin.hset(forks, 'ghost-fresh', String(seconds * 1000));
    await expect(redisStore.deleteSession(parent)).rejects.toMatchObject({ code: 'HAS_FORKS', forks: 1 });
    expect(await redisStore.forks.list(parent)).toEqual(['ghost-fresh']);

    // Listed over a minute ago: stale. A real fork of the parent stays listed and keeps blocking.
    await admin.hset(forks, 'ghost-fresh', String(seconds * 1000 - 61_000));
    const child = `stale-child-${randomUUID()}`;
    const made = await redisStore.forks.create({
      parentId: parent,
      parentEpoch: result.epoch,
      atSeq: 0,
      childId: child,
      events: [],
    });
    expect(made.status).toBe('forked');
    await admin.hset(forks, child, String(seconds * 1000 - 61_000));
    await expect(redisStore.deleteSession(parent)).rejects.toMatchObject({ code: 'HAS_FORKS', forks: 1 });
    expect(await redisStore.forks.list(parent)).toEqual([child]);
    expect(await redisStore.deleteSession(child)).toBe(true);
    expect(await redisStore.deleteSession(parent)).toBe(true);
    expect(await admin.exists(forks)).toBe(0);
  });
});
