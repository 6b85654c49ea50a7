import fc from 'fast-check';
import { afterAll, describe, expect } from 'vitest';
import { CloseCode, type ServerMessage } from '../../shared/protocol.ts';
import { encodeMsgpackValue } from '../../shared/codec.ts';
import type { RedisStore } from '../../server/store/redis/redis-store.ts';
import { test } from '../helpers/fixtures.ts';
import type { TestHub } from '../helpers/hub.ts';
import { range, RawHubClient } from '../helpers/raw-hub-client.ts';

const KiB = 1024;
const user = (content: string) => ({ type: 'user/message', data: { role: 'user', content } });
const TARGET = 'fuzz/target';

/**
 * Hostile and broken input, generated with fast-check, against a real hub on a real Redis. A watcher subscribed to
 * TARGET runs alongside; a legitimate writer appends between properties. Every hostile frame must be answered with
 * an error (or, for a protocol violation, a close), the hub must keep serving, and TARGET must hold exactly the
 * legitimate writes.
 */
const it = test.extend('keyPrefix', { scope: 'file' }, 'fuzz:').extend(
  'hubConfig',
  { scope: 'file' },
  {
    limits: { maxFrameBytes: 512 * KiB, maxEventBytes: 64 * KiB, appendsPerSecond: 100_000, appendBurst: 100_000 },
  },
);

describe('hostile input (fast-check)', () => {
  let store: RedisStore;
  let hub: TestHub;
  let watcher: RawHubClient;
  let writer: RawHubClient;
  let hostile: RawHubClient;
  let written = 0;
  let answered = 0;

  it.beforeAll(async ({ redisStore, redisHub }) => {
    store = redisStore;
    hub = redisHub;
    watcher = await RawHubClient.connect(hub.wsUrl);
    writer = await RawHubClient.connect(hub.wsUrl);
    hostile = await RawHubClient.connect(hub.wsUrl);
    await watcher.request({ type: 'subscribe', sessionId: TARGET });
    await legitimateWrite();
  });
  afterAll(async () => {
    await Promise.all([watcher.close(), writer.close(), hostile.close()]);
  });

  async function legitimateWrite(): Promise<void> {
    expect(await writer.request({ type: 'append', sessionId: TARGET, events: [user(`ok ${written}`)] })).toMatchObject({
      type: 'ack',
      firstSeq: written,
    });
    written++;
  }

  /** The hostile socket, reconnected if a previous case closed it. */
  async function hostileClient(): Promise<RawHubClient> {
    if (hostile.ws.readyState !== hostile.ws.OPEN) hostile = await RawHubClient.connect(hub.wsUrl);
    return hostile;
  }

  /** Send one frame; expect an error reply (matching `id` when given) or a close with one of `closeCodes`. */
  async function expectRefused(
    frame: Uint8Array | string,
    options: { id?: number; codes?: readonly string[]; closeCodes?: readonly number[] } = {},
  ): Promise<ServerMessage | number> {
    const client = await hostileClient();
    const from = client.messages.length;
    client.sendRaw(frame);
    const outcome = await Promise.race([
      client
        .waitFor((m) => m.type === 'error' && (options.id === undefined || m.id === options.id), { from })
        .catch(async (error: unknown) => {
          if (client.ws.readyState === client.ws.OPEN) throw error;
          return (await client.closed).code;
        }),
      client.closed.then((closed) => closed.code),
    ]);
    if (typeof outcome === 'number') {
      expect(options.closeCodes ?? []).toContain(outcome);
    } else if (options.codes !== undefined) {
      expect(options.codes).toContain((outcome as Extract<ServerMessage, { type: 'error' }>).code);
    }
    answered++;
    return outcome;
  }

  const hostileSession = fc.constantFrom(TARGET, 'fuzz/other');
  const runs = { numRuns: 60 };

  it('random bytes → PARSE_ERROR or BAD_REQUEST', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ minLength: 1, maxLength: 512 }), async (bytes) => {
        await expectRefused(bytes, { codes: ['PARSE_ERROR', 'BAD_REQUEST'] });
      }),
      runs,
    );
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 256 }), async (text) => {
        await expectRefused(text, { codes: ['PARSE_ERROR', 'BAD_REQUEST'] });
      }),
      runs,
    );
  });

  it('truncated msgpack of valid requests → PARSE_ERROR', async () => {
    await fc.assert(
      fc.asyncProperty(
        hostileSession,
        fc.string({ maxLength: 64 }),
        fc.double({ min: 0, max: 0.999, noNaN: true }),
        async (sessionId, content, cut) => {
          const frame = encodeMsgpackValue({ type: 'append', id: 7, sessionId, events: [user(content)] });
          await expectRefused(frame.subarray(0, Math.floor(frame.byteLength * cut)), {
            codes: ['PARSE_ERROR', 'BAD_REQUEST'],
          });
        },
      ),
      runs,
    );
  });

  const notAString = fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.integer()), fc.object());
  const notAnIndex = fc.oneof(
    fc.integer({ max: -1 }),
    fc.double({ noInteger: true }),
    fc.string(),
    fc.boolean(),
    fc.constant(null),
    fc.object(),
  );

  it('wrong field types → BAD_REQUEST', async () => {
    const templates: readonly [Record<string, unknown>, string, fc.Arbitrary<unknown>][] = [
      [{ type: 'subscribe', sessionId: TARGET }, 'sessionId', notAString],
      [{ type: 'subscribe', sessionId: TARGET }, 'fromSeq', notAnIndex],
      [{ type: 'subscribe', sessionId: TARGET }, 'epoch', notAString],
      [{ type: 'append', sessionId: TARGET, events: [user('x')] }, 'events', fc.oneof(notAString, fc.string())],
      [{ type: 'append', sessionId: TARGET, events: [user('x')] }, 'expectedSeq', notAnIndex],
      [{ type: 'append', sessionId: TARGET, events: [user('x')] }, 'idempotencyKey', notAString],
      [{ type: 'append', sessionId: TARGET, events: [user('x')] }, 'sessionId', notAString],
      [{ type: 'unsubscribe', sessionId: TARGET }, 'sessionId', notAString],
      [{ type: 'auth' }, 'token', notAString],
    ];
    for (const [template, field, wrong] of templates) {
      await fc.assert(
        fc.asyncProperty(wrong, fc.nat(1_000_000), async (value, id) => {
          const frame = encodeMsgpackValue({ ...template, id, [field]: value });
          await expectRefused(frame, { id, codes: ['BAD_REQUEST', 'UNAUTHORIZED', 'INVALID_EVENT'] });
        }),
        { numRuns: 15 },
      );
    }
  });

  it('unknown message kinds → BAD_REQUEST', async () => {
    const known = ['hello', 'auth', 'subscribe', 'unsubscribe', 'append', 'ping'];
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 1, maxLength: 40 }).filter((kind) => !known.includes(kind)),
        fc.nat(),
        async (kind, id) => {
          await expectRefused(encodeMsgpackValue({ type: kind, id, sessionId: TARGET }), {
            id,
            codes: ['BAD_REQUEST'],
          });
        },
      ),
      runs,
    );
  });

  it('deeply nested or huge payloads → EVENT_TOO_LARGE, or a 1009 close above the frame limit', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 65, max: 50_000 }), fc.nat(), async (depth, id) => {
        const nested = `${'['.repeat(depth)}1${']'.repeat(depth)}`;
        const frame = `{"type":"append","id":${id},"sessionId":"${TARGET}","events":[{"type":"x/deep","data":${nested}}]}`;
        await expectRefused(frame, { id, codes: ['EVENT_TOO_LARGE', 'INVALID_JSON', 'BAD_REQUEST'] });
      }),
      { numRuns: 20 },
    );
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 65 * KiB, max: 300 * KiB }), fc.nat(), async (size, id) => {
        const frame = encodeMsgpackValue({ type: 'append', id, sessionId: TARGET, events: [user('y'.repeat(size))] });
        await expectRefused(frame, { id, codes: ['EVENT_TOO_LARGE'] });
      }),
      { numRuns: 10 },
    );
    const tooBig = encodeMsgpackValue({
      type: 'append',
      id: 1,
      sessionId: TARGET,
      events: [user('z'.repeat(600 * KiB))],
    });
    expect(await expectRefused(tooBig, { closeCodes: [CloseCode.MESSAGE_TOO_BIG] })).toBe(CloseCode.MESSAGE_TOO_BIG);
    const wide = { type: 'append', id: 2, sessionId: TARGET, events: range(0, 1500).map((n) => user(`${n}`)) };
    await expectRefused(encodeMsgpackValue(wide), { id: 2, codes: ['BATCH_TOO_LARGE'] });
  });

  it('invalid surface ops → SURFACE_VIOLATION or INVALID_EVENT', async () => {
    await legitimateWrite();
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.record({ op: fc.constant('replace'), startSeq: fc.integer(), endSeq: fc.integer() }),
          fc.constantFrom('prepend', 'replace', '', 42, null),
          fc.record({ op: fc.string(), startSeq: fc.nat(), endSeq: fc.nat() }),
        ),
        fc.constantFrom('user/message', 'turn/start', 'x/ext'),
        fc.nat(),
        async (surfaceOp, type, id) => {
          const data = type === 'turn/start' ? { turn: 1 } : { role: 'user', content: 'replaced' };
          const frame = encodeMsgpackValue({
            type: 'append',
            id,
            sessionId: TARGET,
            events: [{ type, data, surfaceOp }],
          });
          await expectRefused(frame, { id, codes: ['SURFACE_VIOLATION', 'INVALID_EVENT', 'BAD_REQUEST'] });
        },
      ),
      runs,
    );
  });

  it('seqs out of range → SEQ_OUT_OF_RANGE, SEQ_CONFLICT or BAD_REQUEST', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.integer({ min: 1_000, max: Number.MAX_SAFE_INTEGER }),
          fc.integer({ max: -1 }),
          fc.double({ noInteger: true }),
        ),
        fc.nat(),
        async (seq, id) => {
          const subscribeFrame = encodeMsgpackValue({ type: 'subscribe', id, sessionId: TARGET, fromSeq: seq });
          await expectRefused(subscribeFrame, { id, codes: ['SEQ_OUT_OF_RANGE', 'BAD_REQUEST'] });
          const appendFrame = encodeMsgpackValue({
            type: 'append',
            id,
            sessionId: TARGET,
            events: [user('late')],
            expectedSeq: seq,
          });
          await expectRefused(appendFrame, { id, codes: ['SEQ_CONFLICT', 'BAD_REQUEST'] });
        },
      ),
      runs,
    );
  });

  it('request floods: every request is answered, nothing is written', async () => {
    const client = await hostileClient();
    const from = client.messages.length;
    const flood = 2000;
    for (let n = 0; n < flood; n++) {
      const id = 1_000_000 + n;
      if (n % 2 === 0) client.send({ type: 'ping', id });
      else client.send({ type: 'append', id, sessionId: TARGET, events: [{ type: 'user/message', data: 42 }] });
    }
    await client.waitFor(
      () =>
        new Set(client.messages.slice(from).flatMap((m) => ('id' in m && m.id >= 1_000_000 ? [m.id] : []))).size ===
        flood,
      { timeoutMs: 60_000 },
    );
    const replies = client.messages.slice(from).filter((m) => 'id' in m && m.id >= 1_000_000);
    expect(replies.filter((m) => m.type === 'pong')).toHaveLength(flood / 2);
    expect(replies.filter((m) => m.type === 'error')).toHaveLength(flood / 2);
    answered += flood;
  });

  it('after all that: the hub is up, the watcher has exactly the legitimate log, nothing else was written', async () => {
    await legitimateWrite();
    await watcher.waitFor((m) => m.type === 'events' && m.events.some((event) => event.seq === written - 1));
    const stored = await store.read(TARGET, 0, 10_000);
    expect(stored.map((event) => event.data)).toEqual(range(0, written - 1).map((n) => user(`ok ${n}`).data));
    expect(watcher.events(TARGET)).toEqual(stored);
    expect(watcher.ofType('error')).toEqual([]);
    expect((await store.head('fuzz/other')).headSeq).toBe(-1);
    expect((await fetch(`${hub.url}/healthz`)).status).toBe(200);
    console.log(`hostile input: ${answered} hostile frames, each answered with an error or a close`);
    expect(answered).toBeGreaterThan(2500);
  });
});
