import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ValidatedDraft } from '../../server/store/event-store.ts';
import { StoreUnavailableError } from '../../server/store/event-store.ts';
import { RedisStore } from '../../server/store/redis/redis-store.ts';
import { RedisServer } from '../helpers/redis-server.ts';

const drafts: ValidatedDraft[] = [{ type: 'test/event', data: { n: 1 } }];
/** Keeps Redis busy for `ARGV[1]` ms (a script runs to its end; nothing else is served meanwhile). */
const BUSY_SCRIPT = `
local t = redis.call('TIME')
local start = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
repeat
  t = redis.call('TIME')
until tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000 - start >= tonumber(ARGV[1])
return 1
`;

describe('RedisStore commit whose answer never came', () => {
  let server: RedisServer;
  let blocker: Redis;
  let store: RedisStore;

  beforeAll(async () => {
    server = await RedisServer.start();
    blocker = new Redis(server.url);
    await blocker.ping();
    store = await RedisStore.open({ url: server.url, commandTimeoutMs: 200 });
  });
  afterAll(async () => {
    await store.close();
    blocker.disconnect();
    await server.stop();
  });

  it('rejects with maybeCommitted, and a retry with the same idempotency key answers duplicate', async () => {
    // A commit sent while a script keeps Redis busy times out on the client but runs afterwards. (Should the
    // commit overtake the busy script under load, it simply commits: try again on a fresh session.)
    let sessionId = '';
    let failure: unknown;
    for (let attempt = 0; attempt < 5 && !(failure instanceof StoreUnavailableError); attempt++) {
      sessionId = `s${attempt}`;
      await store.head(sessionId);
      const busy = blocker.eval(BUSY_SCRIPT, 0, 1500);
      failure = await store
        .commit({ sessionId, expectedSeq: 0, events: drafts, idempotencyKey: 'retry-me' })
        .catch((error: unknown) => error);
      await busy;
    }
    expect(failure).toBeInstanceOf(StoreUnavailableError);
    expect(failure).toMatchObject({ code: 'STORE_UNAVAILABLE', maybeCommitted: true });
    // Redis ran the timed-out commit after the busy script: the retry must not commit twice.
    const retry = await vi.waitFor(
      () => store.commit({ sessionId, expectedSeq: 0, events: drafts, idempotencyKey: 'retry-me' }),
      { timeout: 10_000, interval: 50 },
    );
    expect(retry).toMatchObject({ status: 'duplicate', firstSeq: 0, lastSeq: 0 });
    expect((await store.head(sessionId)).headSeq).toBe(0);
  });
});
