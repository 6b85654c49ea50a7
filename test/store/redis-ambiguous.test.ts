import { describe, expect, vi } from 'vitest';
import type { ValidatedDraft } from '../../server/store/event-store.ts';
import { StoreUnavailableError } from '../../server/store/event-store.ts';
import { test } from '../helpers/fixtures.ts';

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

const it = test.extend('redisStoreOptions', { scope: 'file' }, { commandTimeoutMs: 200 });

describe('RedisStore commit whose answer never came', () => {
  it('rejects with maybeCommitted, and a retry with the same idempotency key answers duplicate', async ({
    admin: blocker,
    redisStore: store,
  }) => {
    await blocker.ping();
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
