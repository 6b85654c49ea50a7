import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../server/logger.ts';
import { PresenceTracker } from '../../server/presence/presence-tracker.ts';
import { MemoryBackend } from '../../server/store/memory/memory-backend.ts';
import { MemoryPresence } from '../../server/store/memory/memory-presence.ts';
import { MAX_WATCHERS_PER_SESSION } from '../../server/store/presence-store.ts';

const WAIT = { timeout: 5000, interval: 5 };

/** The memory engine's presence store, recording the ids of every `remove` it is asked for. */
class RecordingPresence extends MemoryPresence {
  readonly removed: string[][] = [];

  override async remove(sessionId: string, ids: readonly string[]): Promise<void> {
    this.removed.push([...ids]);
    await super.remove(sessionId, ids);
  }
}

/** A node's tracker on the memory engine's presence store (what a second node would read). */
function tracker(): { tracker: PresenceTracker; store: RecordingPresence } {
  const store = new RecordingPresence(new MemoryBackend());
  const presence = new PresenceTracker({
    store,
    nodeName: 'n',
    logger: createLogger('silent'),
    ttlMs: 60_000,
    pollMs: 60_000,
  });
  return { tracker: presence, store };
}

async function listedIds(store: MemoryPresence, sessionId: string): Promise<string[]> {
  return (await store.list(sessionId)).map((entry) => entry.id).sort();
}

describe('presence tracker: this node’s watchers of one session', () => {
  const open: PresenceTracker[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((presence) => presence.close()));
  });

  it('from one watcher to several and back: each leaves alone, the last one leaves the session empty', async () => {
    const { tracker: presence, store } = tracker();
    open.push(presence);
    const first = presence.join('s', 'alice', 'first')!;
    await expect.poll(() => listedIds(store, 's'), WAIT).toEqual([first]);
    const second = presence.join('s', 'bob')!;
    const third = presence.join('s', 'carol')!;
    await expect.poll(() => listedIds(store, 's'), WAIT).toEqual([first, second, third].sort());
    presence.leave('s', second);
    presence.leave('s', second); // a second leave of the same id writes nothing
    presence.leave('s', 'n/unknown');
    expect(store.removed).toEqual([[second]]);
    await expect.poll(() => listedIds(store, 's'), WAIT).toEqual([first, third].sort());
    presence.leave('s', first);
    await expect.poll(() => listedIds(store, 's'), WAIT).toEqual([third]);
    // One watcher left (held without a map): leaving an id that left already, or one never joined, keeps it.
    presence.leave('s', first);
    presence.leave('s', second);
    presence.leave('other', third);
    expect(store.removed).toEqual([[second], [first]]);
    expect(await listedIds(store, 's')).toEqual([third]);
    const fourth = presence.join('s', 'dave')!;
    await expect.poll(() => listedIds(store, 's'), WAIT).toEqual([third, fourth].sort());
    presence.leave('s', third);
    presence.leave('s', fourth);
    await expect.poll(() => listedIds(store, 's'), WAIT).toEqual([]);
  });

  it('close removes every watcher of every session, whether one or several', async () => {
    const { tracker: presence, store } = tracker();
    const one = presence.join('one', 'alice', 'label')!;
    const many = [presence.join('many', 'bob')!, presence.join('many', 'carol')!];
    await expect.poll(() => listedIds(store, 'one'), WAIT).toEqual([one]);
    await expect.poll(() => listedIds(store, 'many'), WAIT).toEqual(many.sort());
    expect((await store.list('one'))[0]).toMatchObject({ id: one, subject: 'alice', node: 'n', label: 'label' });
    await presence.close();
    expect(await listedIds(store, 'one')).toEqual([]);
    expect(await listedIds(store, 'many')).toEqual([]);
    expect(presence.join('one', 'alice')).toBeUndefined();
  });

  it(`refuses the watcher after ${MAX_WATCHERS_PER_SESSION} of one session on this node`, async () => {
    const { tracker: presence } = tracker();
    open.push(presence);
    const ids = Array.from({ length: MAX_WATCHERS_PER_SESSION }, () => presence.join('s', 'alice'));
    expect(ids.every((id) => id !== undefined)).toBe(true);
    expect(presence.join('s', 'alice')).toBeUndefined();
    presence.leave('s', ids[0]!);
    expect(presence.join('s', 'alice')).toBeDefined();
  });
});
