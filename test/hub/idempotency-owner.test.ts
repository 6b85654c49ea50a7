import { describe, expect } from 'vitest';
import type { HubAuth } from '../../server/auth/auth-seam.ts';
import { HubError } from '../../server/hub-error.ts';
import { storeEngines } from '../helpers/engines.ts';
import { test, type EngineHubFixture } from '../helpers/fixtures.ts';
import type { TestHub } from '../helpers/hub.ts';
import { RawHubClient } from '../helpers/raw-hub-client.ts';

const user = (content: string) => ({ type: 'user/message', data: { role: 'user', content } });

/** The token is the subject; everyone may append to every session. */
const tokenIsSubject: HubAuth = {
  authenticate: (token) => {
    if (token === undefined) throw new HubError('UNAUTHORIZED', 'a token is required');
    return { subject: token };
  },
  authorize: () => true,
};

const engines = storeEngines('owned-keys:').map((engine) => ({
  name: engine.name,
  it: test.extend('engine', { scope: 'file' }, engine).extend('hubConfig', { scope: 'file' }, { auth: tokenIsSubject }),
}));

describe.each(engines)('hub: idempotency keys belong to their principal ($name)', ({ it }) => {
  let engine: EngineHubFixture;
  let hub: TestHub;
  it.beforeAll(({ engineHub }) => {
    engine = engineHub;
    hub = engineHub.hub;
  });

  async function post(token: string, sessionId: string, content: string, key: string) {
    const response = await fetch(`${hub.url}/v1/sessions/${sessionId}/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'idempotency-key': key },
      body: JSON.stringify({ events: [user(content)] }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  it('over HTTP: another principal cannot confirm content by guessing a key; the owner still dedupes', async () => {
    expect(await post('alice', 's-http', 'the secret plan', 'k1')).toMatchObject({
      status: 201,
      body: { firstSeq: 0 },
    });
    // Same key and same content from mallory: a new append of mallory's, not a `duplicate` of alice's.
    expect(await post('mallory', 's-http', 'the secret plan', 'k1')).toMatchObject({
      status: 201,
      body: { firstSeq: 1, duplicate: false },
    });
    // Same key, other content: not IDEMPOTENCY_MISMATCH either (which would say the key exists).
    expect(await post('alice', 's-http', 'plan b', 'k2')).toMatchObject({ status: 201, body: { firstSeq: 2 } });
    expect(await post('mallory', 's-http', 'a guess', 'k2')).toMatchObject({ status: 201, body: { firstSeq: 3 } });
    // The owners' retries are still deduplicated.
    expect(await post('alice', 's-http', 'the secret plan', 'k1')).toMatchObject({
      status: 200,
      body: { firstSeq: 0, duplicate: true },
    });
    expect(await post('mallory', 's-http', 'a guess', 'k2')).toMatchObject({
      status: 200,
      body: { firstSeq: 3, duplicate: true },
    });
    expect(await engine.store.read('s-http', 0, 10)).toHaveLength(4);
  });

  it('over WebSocket, with the subject of the hello token', async () => {
    const alice = await RawHubClient.connect(hub.wsUrl, { token: 'alice' });
    const mallory = await RawHubClient.connect(hub.wsUrl, { token: 'mallory' });
    try {
      const append = (client: RawHubClient, content: string) =>
        client.request({ type: 'append', sessionId: 's-ws', events: [user(content)], idempotencyKey: 'k' });
      expect(await append(alice, 'the secret plan')).toMatchObject({ type: 'ack', firstSeq: 0, duplicate: false });
      expect(await append(mallory, 'a guess')).toMatchObject({ type: 'ack', firstSeq: 1, duplicate: false });
      expect(await append(alice, 'the secret plan')).toMatchObject({ type: 'ack', firstSeq: 0, duplicate: true });
    } finally {
      await Promise.all([alice.close(), mallory.close()]);
    }
  });
});
