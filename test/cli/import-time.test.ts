import { describe, expect } from 'vitest';
import { createAuthenticator } from '../../server/auth/authenticator.ts';
import { createHubAuth } from '../../server/auth/hub-auth.ts';
import { secretKey } from '../../server/auth/verification-key.ts';
import { storeEngines } from '../helpers/engines.ts';
import { test } from '../helpers/fixtures.ts';
import type { TestHub } from '../helpers/hub.ts';
import { RawHubClient } from '../helpers/raw-hub-client.ts';
import { hs256Issuer } from '../helpers/tokens.ts';

const issuer = hs256Issuer();
const turn = (n: number) => ({ type: 'test/note', data: { n } });
const auth = createHubAuth(createAuthenticator({ key: secretKey(issuer.secret!) }));
const engines = storeEngines('import-time:').map((engine) => ({
  name: engine.name,
  it: test.extend('engine', { scope: 'file' }, engine).extend('hubConfig', { scope: 'file' }, { auth }),
}));

describe.each(engines)('import mode of the append API ($name engine)', ({ it }) => {
  let hub: TestHub;
  let admin: string;
  let writer: string;
  it.beforeAll(async ({ engineHub }) => {
    hub = engineHub.hub;
    admin = await issuer.sign({ sub: 'admin', sh: { read: ['*'], append: ['*'], admin: ['*'] } });
    writer = await issuer.sign({ sub: 'writer', sh: { read: ['*'], append: ['*'] } });
  });

  const post = async (sessionId: string, token: string, body: object) => {
    const response = await fetch(`${hub.url}/v1/sessions/${encodeURIComponent(sessionId)}/events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const read = async (sessionId: string) => {
    const response = await fetch(`${hub.url}/v1/sessions/${encodeURIComponent(sessionId)}/events?from=0`, {
      headers: { authorization: `Bearer ${admin}` },
    });
    return ((await response.json()) as { events: { seq: number; time: number }[] }).events;
  };

  it('stores the given time for every event of an HTTP append, and keeps it on a retried key', async () => {
    const first = await post('s-http', admin, { events: [turn(1), turn(2)], time: 1_000, idempotencyKey: 'a' });
    expect(first).toMatchObject({ status: 201, body: { firstSeq: 0, lastSeq: 1, time: 1_000 } });
    const again = await post('s-http', admin, { events: [turn(1), turn(2)], time: 1_000, idempotencyKey: 'a' });
    expect(again).toMatchObject({ status: 200, body: { firstSeq: 0, lastSeq: 1, time: 1_000, duplicate: true } });
    expect(await post('s-http', admin, { events: [turn(3)], time: 1_000 })).toMatchObject({ status: 201 });
    const before = Date.now();
    const ordinary = await post('s-http', admin, { events: [turn(4)] });
    expect(ordinary.body['time']).toBeGreaterThanOrEqual(before - 1_000);
    expect((await read('s-http')).map((event) => event.time)).toEqual([1_000, 1_000, 1_000, ordinary.body['time']]);
  });

  it('refuses a time before the last event or in the future (INVALID_EVENT), nothing written', async () => {
    await post('s-order', admin, { events: [turn(1)], time: 5_000 });
    const back = await post('s-order', admin, { events: [turn(2)], time: 4_999 });
    expect(back).toMatchObject({ status: 400, body: { error: { code: 'INVALID_EVENT' } } });
    const future = await post('s-order', admin, { events: [turn(2)], time: Date.now() + 60_000 });
    expect(future).toMatchObject({ status: 400, body: { error: { code: 'INVALID_EVENT' } } });
    expect(await read('s-order')).toHaveLength(1);
  });

  it('needs admin on the session: a writer gets FORBIDDEN over HTTP and WebSocket, nothing written', async () => {
    const refused = await post('s-writer', writer, { events: [turn(1)], time: 1_000 });
    expect(refused).toMatchObject({ status: 403, body: { error: { code: 'FORBIDDEN' } } });
    const client = await RawHubClient.connect(hub.wsUrl, { token: writer });
    try {
      const reply = await client.request({ type: 'append', sessionId: 's-writer', events: [turn(1)], time: 1_000 });
      expect(reply).toMatchObject({ type: 'error', code: 'FORBIDDEN' });
    } finally {
      await client.close();
    }
    expect(await read('s-writer')).toHaveLength(0);
  });

  it('an admin imports over WebSocket: the ack and the stored events carry the given time', async () => {
    const client = await RawHubClient.connect(hub.wsUrl, { token: admin });
    try {
      const reply = await client.request({ type: 'append', sessionId: 's-ws', events: [turn(1)], time: 2_000 });
      expect(reply).toMatchObject({ type: 'ack', firstSeq: 0, time: 2_000 });
    } finally {
      await client.close();
    }
    expect((await read('s-ws')).map((event) => event.time)).toEqual([2_000]);
  });
});
