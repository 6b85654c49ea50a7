import { Redis } from 'ioredis';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EncodedEventPage } from '../../server/store/codec/encoded-page.ts';
import { StoreUnavailableError, type ValidatedDraft } from '../../server/store/event-store.ts';
import { RedisStore } from '../../server/store/redis/redis-store.ts';
import { RedisServer, type RedisServerOptions } from '../helpers/redis-server.ts';

// Catch-up pages are read over a plain socket of their own in raw RESP (not through ioredis): it must log in like
// the store, follow it, and fail like it.

const WAIT = { timeout: 15_000, interval: 50 };
const drafts = (first: number, count: number): ValidatedDraft[] =>
  Array.from({ length: count }, (_, index) => ({
    type: 'test/event',
    data: { index: first + index, text: (first + index) % 97 === 0 ? 'ü😀'.repeat(9_000) : `chunk ${first + index}` },
  }));

/** How many times Redis ran a command (INFO commandstats). */
async function calls(admin: Redis, name: string): Promise<number> {
  const info = await admin.info('commandstats');
  return Number(new RegExp(`^cmdstat_${name}:calls=(\\d+)`, 'm').exec(info)?.[1] ?? 0);
}

/** Connections Redis has open. */
async function clientCount(admin: Redis): Promise<number> {
  const list = (await admin.call('CLIENT', 'LIST')) as string;
  return list.trim().split('\n').length;
}

describe('RedisStore catch-up pages over their own connection', () => {
  let server: RedisServer | undefined;
  let store: RedisStore | undefined;
  let admin: Redis | undefined;
  afterEach(async () => {
    admin?.disconnect();
    await store?.close();
    await server?.stop();
  });

  async function start(options: RedisServerOptions, url: (server: RedisServer) => string, commandTimeoutMs = 2000) {
    server = await RedisServer.start(options);
    store = await RedisStore.open({ url: url(server), commandTimeoutMs, onError: () => {} });
    admin = new Redis(url(server));
    for (let first = 0; first < 2_500; first += 500) {
      const result = await store.commit({ sessionId: 's', expectedSeq: first, events: drafts(first, 500) });
      expect(result.status).toBe('committed');
    }
    return { store, admin };
  }

  /** Read the whole log as catch-up does, and check it against `read` (XRANGE); how many EXECs Redis ran meanwhile. */
  async function replay(store: RedisStore, admin: Redis): Promise<number> {
    const execs = await calls(admin, 'exec');
    const epoch = await admin.get(store.keys('s').epoch);
    for (let from = 0; from < 2_500; from += 1_000) {
      const page = new EncodedEventPage('s', await store.readStoredPage('s', from, 1_000));
      expect(page.epoch).toBe(epoch);
      expect(page.events()).toEqual(await store.read('s', from, 1_000));
    }
    return (await calls(admin, 'exec')) - execs;
  }

  it('reads the pages XRANGE reads, with GET and XRANGE and no MULTI', async () => {
    const { store, admin } = await start({}, (server) => server.url);
    const xranges = await calls(admin, 'xrange');
    expect(await replay(store, admin)).toBe(0);
    expect((await calls(admin, 'xrange')) - xranges).toBe(6); // three pages, each by catch-up and by read
    const empty = await store.readStoredPage('nobody', 0, 10);
    expect(empty).toEqual({ epoch: undefined, firstSeq: 0, bodies: [], times: [] });
  });

  it('logs in with the user and password of the URL and selects its database', async () => {
    const acl = ['--user', 'default', 'off', '--user', 'agent', 'on', '>s3cret', '~*', '&*', '+@all'];
    const { store, admin } = await start(
      { extraArgs: acl },
      (server) => `redis://agent:s3cret@127.0.0.1:${server.port}/3`,
    );
    expect(await replay(store, admin)).toBe(0);
    expect(await admin.dbsize()).toBeGreaterThan(0); // the URL's database 3 holds the session
  });

  it('fails a read as unavailable while Redis is gone or frozen, and reconnects after', async () => {
    const { store, admin } = await start({ appendOnly: true, appendFsync: 'always' }, (server) => server.url, 500);
    admin.disconnect(); // it would retry its connection while Redis is down
    await server!.kill();
    await expect(store.readStoredPage('s', 0, 1_000)).rejects.toBeInstanceOf(StoreUnavailableError);
    await server!.restart();
    await vi.waitFor(() => store.head('s'), WAIT);
    const fresh = new Redis(server!.url);
    try {
      expect(await replay(store, fresh)).toBe(0);
      const execs = await calls(fresh, 'exec');
      server!.pause();
      await expect(store.readStoredPage('s', 0, 1_000)).rejects.toBeInstanceOf(StoreUnavailableError);
      server!.resume();
      expect(await replay(store, fresh)).toBe(0);
      // The read that got no reply was not asked again through ioredis (a frozen Redis is not asked twice).
      expect((await calls(fresh, 'exec')) - execs).toBe(0);
      await store.close();
      expect(await store.readStoredPage('s', 0, 10).catch((error: unknown) => error)).toBeInstanceOf(Error);
      // The store's three connections are gone, the catch-up one included; this one is left.
      await vi.waitFor(async () => expect(await clientCount(fresh)).toBe(1), WAIT);
    } finally {
      fresh.disconnect();
    }
  });
});
