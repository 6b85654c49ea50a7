import { describe, expect } from 'vitest';
import type { EventStore } from '../../server/store/event-store.ts';
import type { PresenceEntry } from '../../server/store/presence-store.ts';
import { storeEngines } from '../helpers/engines.ts';
import { test } from '../helpers/fixtures.ts';

const entry = (id: string, since: number, label?: string): PresenceEntry => ({
  id,
  subject: 'tester',
  node: id.split('/')[0]!,
  since,
  ...(label === undefined ? {} : { label }),
});

/** Resolves once `check` holds for the list (re-read until then; the suite's timeout bounds it). */
async function listUntil(store: EventStore, sessionId: string, check: (ids: string[]) => boolean): Promise<string[]> {
  for (;;) {
    const ids = (await store.presence.list(sessionId)).map((watcher) => watcher.id);
    if (check(ids)) return ids;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const engines = storeEngines('presence-conformance:').map((engine) => ({
  name: engine.name,
  it: test.extend('engine', { scope: 'file' }, engine),
}));

describe.each(engines)('PresenceStore ($name)', ({ it }) => {
  let store: EventStore;
  it.beforeAll(({ engineStore }) => {
    store = engineStore;
  });

  it('lists what was written, in join order, and forgets what was removed', async () => {
    const { presence } = store;
    await presence.refresh('s/1', [entry('a/1', 20, 'ui'), entry('b/1', 10)], 60_000);
    await presence.refresh('s/1', [entry('a/2', 30)], 60_000);
    expect(await presence.list('s/1')).toEqual([entry('b/1', 10), entry('a/1', 20, 'ui'), entry('a/2', 30)]);
    await presence.remove('s/1', ['a/1', 'nobody']);
    expect((await presence.list('s/1')).map((watcher) => watcher.id)).toEqual(['b/1', 'a/2']);
    expect(await presence.list('s/other')).toEqual([]);
  });

  it('an entry nobody refreshes lapses after its TTL; a refreshed one stays', async () => {
    const { presence } = store;
    await presence.refresh('s/2', [entry('dead/1', 1), entry('alive/1', 2)], 300);
    const refresher = setInterval(() => void presence.refresh('s/2', [entry('alive/1', 2)], 300), 50);
    try {
      expect(await listUntil(store, 's/2', (ids) => !ids.includes('dead/1'))).toEqual(['alive/1']);
    } finally {
      clearInterval(refresher);
    }
  });
});
