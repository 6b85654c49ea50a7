import { afterAll, describe, expect } from 'vitest';
import { encodeMsgpackValue } from '../../shared/codec.ts';
import type { RedisStore } from '../../server/store/redis/redis-store.ts';
import { test } from '../helpers/fixtures.ts';
import { range, RawHubClient } from '../helpers/raw-hub-client.ts';

const user = (content: string) => ({ type: 'user/message', data: { role: 'user', content } });
const it = test.extend('keyPrefix', { scope: 'file' }, 'mal:');

function seededBytes(seed: number, length: number): Uint8Array {
  let state = seed;
  return new Uint8Array(length).map(() => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state >> 16;
  });
}

describe('hub: malformed frames and invalid events', () => {
  let store: RedisStore;
  let hostile: RawHubClient;
  let watcher: RawHubClient;
  let writer: RawHubClient;
  const sessionId = 'target';
  let written = 0;

  it.beforeAll(async ({ redisStore, redisHub: hub }) => {
    store = redisStore;
    hostile = await RawHubClient.connect(hub.wsUrl);
    watcher = await RawHubClient.connect(hub.wsUrl);
    writer = await RawHubClient.connect(hub.wsUrl);
    await watcher.request({ type: 'subscribe', sessionId });
    await writer.request({ type: 'append', sessionId, events: [user('start')] });
    written = 1;
  });
  afterAll(async () => {
    await Promise.all([hostile.close(), watcher.close(), writer.close()]);
  });

  /** Send one bad frame, expect one error reply; meanwhile the watcher keeps getting the writer's events. */
  async function expectError(frame: Uint8Array | string, code: RegExp): Promise<void> {
    const from = hostile.messages.length;
    hostile.sendRaw(frame);
    const reply = await hostile.waitFor((message) => message.type === 'error', { from });
    expect(reply.type === 'error' && reply.code).toMatch(code);
    const ack = await writer.request({ type: 'append', sessionId, events: [user(`after ${written}`)] });
    expect(ack).toMatchObject({ type: 'ack', firstSeq: written });
    written++;
  }

  it('answers random bytes with PARSE_ERROR or BAD_REQUEST and keeps the connection', async () => {
    for (let seed = 1; seed <= 40; seed++) {
      await expectError(seededBytes(seed, 1 + (seed % 23)), /^(PARSE_ERROR|BAD_REQUEST)$/);
    }
    expect(await hostile.request({ type: 'ping' })).toMatchObject({ type: 'pong' });
  });

  it('answers JSON garbage, wrong shapes and unknown types with errors naming the problem', async () => {
    await expectError('{"type": "append", ', /^PARSE_ERROR$/);
    await expectError('not json at all', /^PARSE_ERROR$/);
    await expectError('[1, 2, 3]', /^BAD_REQUEST$/);
    await expectError(encodeMsgpackValue(42), /^BAD_REQUEST$/);
    await expectError(encodeMsgpackValue({ type: 'teleport', id: 1 }), /^BAD_REQUEST$/);
    await expectError(encodeMsgpackValue({ type: 'subscribe', id: 2, sessionId: 7 }), /^BAD_REQUEST$/);
    await expectError(encodeMsgpackValue({ type: 'append', id: 3, sessionId, events: 'all of them' }), /^BAD_REQUEST$/);
    await expectError(encodeMsgpackValue({ type: 'append', id: 4, sessionId, events: [null] }), /^BAD_REQUEST$/);
    await expectError(
      encodeMsgpackValue({ type: 'append', id: 5, sessionId: 'bad{id}', events: [user('x')] }),
      /^BAD_REQUEST$/,
    );
    const reply = hostile.ofType('error').find((error) => error.id === 3);
    expect(reply?.message).toMatch(/"events"/);
  });

  it('rejects invalid events with their codes and leaves the log unchanged', async () => {
    const before = await store.head(sessionId);
    const bad = [
      [{ type: 'no-slash', data: {} }, 'INVALID_EVENT'],
      [{ type: 'turn/start', data: { turn: -1 } }, 'INVALID_EVENT'],
      [{ type: 'x/y', data: { when: new Date(0) } }, 'INVALID_JSON'],
      [{ ...user('x'), surfaceOp: { op: 'replace', startSeq: 0, endSeq: 99 } }, 'SURFACE_VIOLATION'],
      [{ type: 'turn/start', data: { turn: 1 }, surfaceOp: 'append' }, 'SURFACE_VIOLATION'],
    ] as const;
    for (const [event, code] of bad) {
      const reply = await hostile.request({ type: 'append', sessionId, events: [user('fine'), event] });
      expect(reply).toMatchObject({ type: 'error', code, sessionId, details: { seq: before.headSeq + 2 } });
    }
    expect(await store.head(sessionId)).toEqual(before);
  });

  it('kept serving the watcher the whole time: every event, in order', async () => {
    await watcher.waitFor((m) => m.type === 'events' && m.events.some((event) => event.seq === written - 1));
    expect(watcher.seqs(sessionId)).toEqual(range(0, written - 1));
    expect(watcher.ofType('error')).toEqual([]);
    expect(hostile.invalidFrames).toEqual([]);
  });
});
