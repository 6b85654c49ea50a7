import { describe, expect, onTestFinished, vi } from 'vitest';
import { HubClient } from '../../client/index.ts';
import { deriveMessages, validateLifecycle, type EventDraft, type SessionEvent } from '../../shared/index.ts';
import { freePort } from '../helpers/free-port.ts';
import { startHub } from '../helpers/hub.ts';
import { secureTest, type SecureHub } from '../security/secure-hub.ts';

const it = secureTest;
const enc = encodeURIComponent;
const user = (content: string): EventDraft => ({ type: 'user/message', data: { role: 'user', content } });

/** A log with one whole turn (seqs 0..5) and a second one left open with an unanswered call (6..9). */
const TURNS: EventDraft[] = [
  user('hi'),
  { type: 'turn/start', data: { turn: 1 } },
  { type: 'step/start', data: { turn: 1, step: 1 } },
  { type: 'assistant/message', data: { turn: 1, step: 1, message: { role: 'assistant', content: 'hello' } } },
  { type: 'step/end', data: { turn: 1, step: 1 } },
  { type: 'turn/end', data: { turn: 1, reason: { kind: 'completed' } } },
  user('list files'),
  { type: 'turn/start', data: { turn: 2 } },
  { type: 'step/start', data: { turn: 2, step: 1 } },
  { type: 'tool/call', data: { turn: 2, step: 1, callId: 'c1', name: 'ls', arguments: '{}' } },
];

describe('forks over HTTP and WebSocket', () => {
  let secure: SecureHub;
  let token: string;

  const call = async (method: string, path: string, body?: object, bearer = token) => {
    const response = await fetch(`${secure.hub.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${bearer}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const append = (sessionId: string, events: readonly EventDraft[]) =>
    call('POST', `/v1/sessions/${enc(sessionId)}/events`, { events });
  const fork = (sessionId: string, body: object, bearer = token) =>
    call('POST', `/v1/sessions/${enc(sessionId)}/forks`, body, bearer);
  const events = async (sessionId: string): Promise<SessionEvent[]> => {
    const all: SessionEvent[] = [];
    for (;;) {
      const page = await call('GET', `/v1/sessions/${enc(sessionId)}/events?from=${all.length}&limit=3`);
      expect(page.status).toBe(200);
      const got = page.body['events'] as SessionEvent[];
      if (got.length === 0) return all;
      all.push(...got);
    }
  };

  it.beforeAll(async ({ secureHub }) => {
    secure = secureHub;
    token = await secure.mint({ read: ['acme/*'], append: ['acme/*'] });
  });

  it('forks at a turn boundary: the fork reads the prefix, goes on alone, and shows its lineage', async () => {
    expect((await append('acme/p1', TURNS)).status).toBe(201);
    const made = await fork('acme/p1', { atSeq: 5, newId: 'acme/p1-retry' });
    expect(made).toMatchObject({
      status: 201,
      body: { sessionId: 'acme/p1-retry', headSeq: 5, parent: 'acme/p1', forkSeq: 5, depth: 1, repaired: 0 },
    });
    const parentLog = await events('acme/p1');
    expect(await events('acme/p1-retry')).toEqual(parentLog.slice(0, 6));
    const head = await call('GET', `/v1/sessions/${enc('acme/p1-retry')}`);
    expect(head.body).toMatchObject({ headSeq: 5, parent: 'acme/p1', forkSeq: 5, depth: 1 });
    expect((await call('GET', `/v1/sessions/${enc('acme/p1')}/forks`)).body).toMatchObject({
      sessionId: 'acme/p1',
      forks: ['acme/p1-retry'],
    });
    expect((await call('GET', `/v1/sessions/${enc('acme/p1-retry')}/forks`)).body).toMatchObject({
      parent: 'acme/p1',
      forkSeq: 5,
      forks: [],
    });
    // "Edit this message and regenerate": the fork replaces a prefix message; only the fork changes.
    const edit = {
      ...user('hello there'),
      surfaceOp: { op: 'replace' as const, startSeq: 0, endSeq: 0 },
      sourceEventSeqs: [0],
    };
    expect(await append('acme/p1-retry', [edit, user('again')])).toMatchObject({
      status: 201,
      body: { firstSeq: 6, lastSeq: 7 },
    });
    const forkLog = await events('acme/p1-retry');
    expect(deriveMessages(forkLog).map((message) => message.content)).toEqual(['hello there', 'hello', 'again']);
    expect(await events('acme/p1')).toEqual(parentLog);
    // The fork's validation sees the prefix: a turn/start must go on from turn 1.
    const wrongTurn = await append('acme/p1-retry', [{ type: 'turn/start', data: { turn: 1 } }]);
    expect(wrongTurn).toMatchObject({ status: 400, body: { error: { code: 'LIFECYCLE_VIOLATION' } } });
  });

  it('inside a turn: FORK_INSIDE_TURN naming it, or with repair a fork whose open turn is closed', async () => {
    expect((await append('acme/p2', TURNS)).status).toBe(201);
    const refused = await fork('acme/p2', { atSeq: 9, newId: 'acme/p2-a' });
    expect(refused).toMatchObject({
      status: 409,
      body: { error: { code: 'FORK_INSIDE_TURN', details: { turn: 2, atSeq: 9 } } },
    });
    expect((await call('GET', `/v1/sessions/${enc('acme/p2-a')}`)).body).toMatchObject({ epoch: '', headSeq: -1 });
    const repaired = await fork('acme/p2', { atSeq: 9, newId: 'acme/p2-a', repair: true });
    expect(repaired).toMatchObject({ status: 201, body: { headSeq: 12, repaired: 3, forkSeq: 9 } });
    const log = await events('acme/p2-a');
    expect(log.slice(0, 10)).toEqual((await events('acme/p2')).slice(0, 10));
    expect(log.slice(10).map((event) => event.type)).toEqual(['tool/result', 'step/end', 'turn/end']);
    expect(validateLifecycle(log, { complete: true })).toEqual([]);
    expect(deriveMessages(log).at(-1)).toMatchObject({ role: 'tool', isError: true, toolCallId: 'c1' });
    // The repaired fork takes a new turn at once.
    expect((await append('acme/p2-a', [{ type: 'turn/start', data: { turn: 3 } }])).status).toBe(201);
    // Inside turn 2 but before its call: the repair is the step's end and the turn's end only.
    const early = await fork('acme/p2', { atSeq: 8, repair: true });
    expect(early).toMatchObject({ status: 201, body: { repaired: 2, forkSeq: 8 } });
    expect(String(early.body['sessionId'])).toMatch(/^acme\/fork-[0-9a-f-]{36}$/);
  });

  it('checks grants, input and targets with typed errors; a retried fork is answered as the same fork', async () => {
    expect((await append('acme/p3', [user('a'), user('b')])).status).toBe(201);
    const readOnly = await secure.mint({ read: ['acme/*'] });
    expect(await fork('acme/p3', { atSeq: 0, newId: 'acme/x' }, readOnly)).toMatchObject({
      status: 403,
      body: { error: { code: 'FORBIDDEN' } },
    });
    const writeOnly = await secure.mint({ append: ['acme/*'] });
    expect((await fork('acme/p3', { atSeq: 0, newId: 'acme/x' }, writeOnly)).status).toBe(403);
    const otherTenant = await secure.mint({ read: ['acme/*'], append: ['globex/*'] });
    expect((await fork('acme/p3', { atSeq: 0, newId: 'acme/x' }, otherTenant)).status).toBe(403);
    expect(await fork('acme/p3', { atSeq: 0 }, otherTenant)).toMatchObject({ status: 403 }); // default id: acme/fork-…
    expect((await fork('acme/p3', { atSeq: 0, newId: 'acme/x' }, 'not-a-token')).status).toBe(401);
    for (const body of [
      {},
      { atSeq: -1 },
      { atSeq: 1.5 },
      { atSeq: '1' },
      { atSeq: 0, newId: '' },
      { atSeq: 0, repair: 1 },
    ]) {
      expect(await fork('acme/p3', body)).toMatchObject({ status: 400, body: { error: { code: 'BAD_REQUEST' } } });
    }
    expect(await fork('acme/p3', { atSeq: 0, newId: 'acme/{x}' })).toMatchObject({ status: 400 });
    expect(await fork('acme/p3', { atSeq: 2 })).toMatchObject({
      status: 400,
      body: { error: { code: 'SEQ_OUT_OF_RANGE', details: { headSeq: 1 } } },
    });
    expect(await fork('acme/none', { atSeq: 0 })).toMatchObject({
      status: 404,
      body: { error: { code: 'NOT_FOUND' } },
    });
    expect(await fork('acme/p3', { atSeq: 0, newId: 'acme/p3' })).toMatchObject({
      status: 409,
      body: { error: { code: 'FORK_TARGET_EXISTS' } },
    });
    expect((await fork('acme/p3', { atSeq: 0, newId: 'acme/p3-f' })).status).toBe(201);
    expect(await fork('acme/p3', { atSeq: 0, newId: 'acme/p3-f' })).toMatchObject({
      status: 200,
      body: { sessionId: 'acme/p3-f', duplicate: true, forkSeq: 0 },
    });
    expect(await fork('acme/p3', { atSeq: 1, newId: 'acme/p3-f' })).toMatchObject({
      status: 409,
      body: { error: { code: 'FORK_TARGET_EXISTS' } },
    });
    // A parent with forks is not deleted; its forks first.
    const admin = await secure.mint({ admin: ['acme/*'], read: ['acme/*'] });
    expect(await call('DELETE', `/v1/sessions/${enc('acme/p3')}`, undefined, admin)).toMatchObject({
      status: 409,
      body: { error: { code: 'HAS_FORKS' } },
    });
    expect((await call('DELETE', `/v1/sessions/${enc('acme/p3-f')}`, undefined, admin)).status).toBe(200);
    expect((await call('DELETE', `/v1/sessions/${enc('acme/p3')}`, undefined, admin)).status).toBe(200);
  });

  it('forks racing the parent appends: every fork holds exactly the parent prefix at its fork seq', async () => {
    expect((await append('acme/race', [user('m0')])).status).toBe(201);
    const appends = (async () => {
      for (let index = 1; index <= 40; index++)
        expect((await append('acme/race', [user(`m${index}`)])).status).toBe(201);
    })();
    const made: { sessionId: string; forkSeq: number }[] = [];
    const forks = (async () => {
      for (let index = 0; index < 15; index++) {
        const head = await call('GET', `/v1/sessions/${enc('acme/race')}`);
        const reply = await fork('acme/race', { atSeq: head.body['headSeq'] as number });
        expect(reply.status).toBe(201);
        made.push({ sessionId: reply.body['sessionId'] as string, forkSeq: reply.body['forkSeq'] as number });
      }
    })();
    await Promise.all([appends, forks]);
    const parentLog = await events('acme/race');
    expect(parentLog).toHaveLength(41);
    for (const { sessionId, forkSeq } of made) expect(await events(sessionId)).toEqual(parentLog.slice(0, forkSeq + 1));
  });

  it('a node that never saw a fork validates appends to it against the whole log (prefix and own events)', async ({
    openRedisStore,
  }) => {
    expect((await append('acme/p5', TURNS.slice(0, 6))).status).toBe(201);
    expect((await fork('acme/p5', { atSeq: 5, newId: 'acme/p5-f' })).status).toBe(201);
    const own = [
      user('one'),
      { type: 'turn/start', data: { turn: 2 } },
      { type: 'turn/end', data: { turn: 2, reason: { kind: 'completed' } } },
    ];
    expect((await append('acme/p5-f', own)).status).toBe(201);
    // A fork of the fork, past its own events.
    expect((await fork('acme/p5-f', { atSeq: 8, newId: 'acme/p5-ff' })).status).toBe(201);
    const node = await startHub({
      store: await openRedisStore({ keyPrefix: 'sec:' }),
      auth: secure.hub.hub.config.auth,
    });
    onTestFinished(() => node.close());
    const post = (sessionId: string, body: object) =>
      fetch(`${node.url}/v1/sessions/${enc(sessionId)}/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    for (const sessionId of ['acme/p5-f', 'acme/p5-ff']) {
      const next = await post(sessionId, { events: [{ type: 'turn/start', data: { turn: 3 } }], expectedSeq: 9 });
      expect({ sessionId, status: next.status, body: await next.json() }).toMatchObject({ status: 201 });
      const wrong = await post(sessionId, { events: [{ type: 'turn/start', data: { turn: 3 } }] });
      expect(wrong.status).toBe(400); // turn 3 is open now: the node knows the whole history
    }
  });

  it('the SDK waits for a connection to fork, and gives up with TIMEOUT (a closed client: CLOSED)', async () => {
    const port = await freePort();
    const client = new HubClient({
      url: `ws://127.0.0.1:${port}/v1/ws`,
      reconnect: { initialDelayMs: 20, maxDelayMs: 50 },
    });
    client.on('error', () => undefined); // the refused connects
    try {
      await expect(client.fork('acme/p1', 0, { timeoutMs: 150 })).rejects.toMatchObject({ code: 'TIMEOUT' });
    } finally {
      client.close();
    }
    await expect(client.fork('acme/p1', 0)).rejects.toMatchObject({ code: 'CLOSED' });
  });

  it('the SDK forks over the socket (a fork of a fork too) and follows the fork from seq 0', async () => {
    expect((await append('acme/p4', TURNS)).status).toBe(201);
    const client = new HubClient({ url: secure.hub.wsUrl, token });
    try {
      const first = await client.fork('acme/p4', 5, { newId: 'acme/p4-a' });
      expect(first).toMatchObject({ sessionId: 'acme/p4-a', forkSeq: 5, depth: 1, duplicate: false });
      await client.append('acme/p4-a', [user('a branch')], { expectedSeq: 6 });
      const second = await client.fork('acme/p4-a', 6, { newId: 'acme/p4-b' });
      expect(second).toMatchObject({ parent: 'acme/p4-a', forkSeq: 6, depth: 2 });
      await expect(client.fork('acme/p4', 8, { newId: 'acme/p4-c' })).rejects.toMatchObject({
        code: 'FORK_INSIDE_TURN',
      });
      const subscription = client.subscribe('acme/p4-b');
      await subscription.whenLive();
      const parentLog = await events('acme/p4');
      expect(subscription.events.slice(0, 6)).toEqual(parentLog.slice(0, 6));
      expect(subscription.events.map((event) => event.seq)).toEqual([0, 1, 2, 3, 4, 5, 6]);
      expect(subscription.messages.map((message) => message.content)).toEqual(['hi', 'hello', 'a branch']);
      // Live: an append to the fork of the fork reaches its subscriber; the parents do not see it.
      await client.append('acme/p4-b', [user('deeper')], { expectedSeq: 7 });
      await vi.waitFor(() => expect(subscription.events).toHaveLength(8), { timeout: 10_000 });
      expect(await events('acme/p4-a')).toHaveLength(7);
    } finally {
      client.close();
    }
  });
});
