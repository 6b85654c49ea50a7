import fc from 'fast-check';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredPage } from '../../server/store/event-store.ts';
import { RedisStore } from '../../server/store/redis/redis-store.ts';
import { StoreTrimmedError } from '../../server/store/trimmed-error.ts';
import { RedisServer } from '../helpers/redis-server.ts';

// Issue 27 §5: the raw RESP page reader keeps the MULTI path (through ioredis) as its reference. Random stream
// entries (well-formed or not: bodies of any bytes, times good and bad, fields missing, extra or repeated, ids out
// of sequence), a random base (issue 29: the first seq after a trim) and random reads: both paths give the same
// page, or both fail with the same kind of error (GONE with the same first seq).

/** One stream entry as written with XADD: its seq offset (ids `<seq>-1`, with gaps when a seq is skipped), fields. */
const field = fc.oneof(
  fc.record({ name: fc.constant('e'), value: fc.uint8Array({ maxLength: 300 }) }),
  fc.record({
    name: fc.constant('t'),
    value: fc.oneof(
      fc.nat({ max: 2 ** 48 }).map((time) => String(time)),
      fc.constantFrom('', '-1', '1.5', 'abc', '9'.repeat(20)),
    ),
  }),
  fc.record({ name: fc.constantFrom('x', 'ee', 'é', ''), value: fc.string({ maxLength: 20 }) }),
);
const entry = fc.record({
  skip: fc.oneof({ weight: 9, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 2 }) }),
  fields: fc.oneof(
    { weight: 6, arbitrary: fc.tuple(fc.uint8Array({ maxLength: 400 }), fc.nat({ max: 2 ** 48 })) },
    { weight: 1, arbitrary: fc.array(field, { minLength: 1, maxLength: 5 }) },
  ),
});

type Outcome =
  | { page: { epoch: string | undefined; firstSeq: number; bodies: Buffer[]; times: readonly number[] } }
  | { error: string };

async function outcome(read: Promise<StoredPage>): Promise<Outcome> {
  try {
    const page = await read;
    return {
      page: {
        epoch: page.epoch,
        firstSeq: page.firstSeq,
        bodies: page.bodies.map((b) => Buffer.from(b)),
        times: page.times,
      },
    };
  } catch (error) {
    if (error instanceof StoreTrimmedError) return { error: `${error.name} ${error.firstSeq}` };
    return { error: error instanceof Error ? error.name : String(error) };
  }
}

describe('raw RESP pages against MULTI pages', () => {
  let server: RedisServer;
  let admin: Redis;
  let raw: RedisStore;
  let multi: RedisStore;
  beforeAll(async () => {
    server = await RedisServer.start();
    admin = new Redis(server.url);
    raw = await RedisStore.open({ url: server.url });
    multi = await RedisStore.open({ url: server.url, rawReads: false });
  });
  afterAll(async () => {
    admin.disconnect();
    await Promise.all([raw.close(), multi.close()]);
    await server.stop();
  });

  it('random entries, random reads: the same page or the same error', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(entry, { maxLength: 40 }),
        fc.boolean(),
        fc.nat({ max: 45 }),
        fc.integer({ min: 1, max: 50 }),
        // The base (first seq held after a trim) in the idempotency hash's field '': none, '' (never trimmed), a seq.
        fc.option(fc.oneof(fc.constant(''), fc.nat({ max: 45 }).map(String)), { nil: undefined }),
        async (entries, withEpoch, fromSeq, limit, base) => {
          const sessionId = `p${run++}`;
          const keys = raw.keys(sessionId);
          let seq = 0;
          for (const { skip, fields } of entries) {
            seq += skip;
            const args: (string | Buffer)[] =
              Array.isArray(fields) && fields.length === 2 && fields[0] instanceof Uint8Array
                ? ['e', Buffer.from(fields[0]), 't', String(fields[1])]
                : (fields as { name: string; value: string | Uint8Array }[]).flatMap(({ name, value }) => [
                    name,
                    typeof value === 'string' ? value : Buffer.from(value),
                  ]);
            await admin.xadd(keys.log, `${seq}-1`, ...args);
            seq++;
          }
          if (withEpoch) await admin.set(keys.epoch, `epoch-${sessionId}`);
          if (base !== undefined) await admin.hset(keys.idempotency, '', base);
          const [fromRaw, fromMulti] = await Promise.all([
            outcome(raw.readStoredPage(sessionId, fromSeq, limit)),
            outcome(multi.readStoredPage(sessionId, fromSeq, limit)),
          ]);
          expect(fromRaw).toEqual(fromMulti);
        },
      ),
      { numRuns: 60 },
    );
    expect(raw.counters?.rawReadFallbacks).toBe(0); // every raw page was read raw
  });
});
