// POST /v1/erasures on both engines: the dry run lists exactly the matching sessions and changes nothing; the real
// run erases them and only them, a page at a time, resumably; bad input is a typed error that changes nothing.
import { describe, expect } from 'vitest';
import type { EventStore, SessionHead } from '../../server/store/event-store.ts';
import { NO_EPOCH } from '../../server/store/event-store.ts';
import { storeEngines } from '../helpers/engines.ts';
import { test } from '../helpers/fixtures.ts';
import { startHub, type TestHub } from '../helpers/hub.ts';
import { secureTest } from '../security/secure-hub.ts';

interface ErasureReply {
  dryRun: boolean;
  sessions: string[];
  erased?: { sessionId: string; erased: boolean; events: number }[];
  failed?: { sessionId: string; code: string }[];
  scanned: number;
  next?: string;
}

const post = (hub: TestHub, body: unknown, token?: string) =>
  fetch(`${hub.url}/v1/erasures`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

async function run(hub: TestHub, body: unknown): Promise<ErasureReply> {
  const response = await post(hub, body);
  expect(response.status).toBe(200);
  return (await response.json()) as ErasureReply;
}

/** Sessions with the metadata a subject erasure matches on (made through the store: `createdBy` as a token's `sub`). */
const SESSIONS: readonly [string, string, Record<string, string>][] = [
  ['u/1', 'alice', {}],
  ['u/2', 'alice', { userId: '42' }],
  ['u/3', 'bob', { userId: '42' }],
  ['u/4', 'bob', { userId: '7' }],
  ['v/5', 'alice', {}],
];

async function seed(store: EventStore): Promise<void> {
  for (const [sessionId, createdBy, labels] of SESSIONS) {
    const events = [
      { type: 'app/note', data: { who: createdBy } },
      { type: 'app/note', data: { n: 2 } },
    ];
    const result = await store.commit({ sessionId, expectedSeq: 0, events });
    expect(result.status).toBe('committed');
    await store.metadata.initialize(sessionId, { createdBy });
    await store.metadata.patch(sessionId, { labels });
  }
}

async function heads(store: EventStore): Promise<Record<string, SessionHead>> {
  const all: Record<string, SessionHead> = {};
  for (const [sessionId] of SESSIONS) all[sessionId] = await store.head(sessionId);
  return all;
}

const engines = storeEngines('erase:').map((engine) => ({
  name: engine.name,
  it: test.extend('engine', { scope: 'file' }, engine),
}));

describe.each(engines)('POST /v1/erasures ($name)', ({ it }) => {
  let store: EventStore;
  let hub: TestHub;
  it.beforeAll(async ({ engineHub }) => {
    ({ store, hub } = engineHub);
    await seed(store);
  });

  it('a dry run lists exactly the matching sessions, pages by id, and changes nothing', async () => {
    const before = await heads(store);
    const byCreator = await run(hub, { match: { createdBy: 'alice' }, dryRun: true });
    expect(byCreator).toMatchObject({ dryRun: true, sessions: ['u/1', 'u/2', 'v/5'] });
    expect(byCreator.next).toBeUndefined();
    expect((await run(hub, { match: { label: 'userId=42' }, dryRun: true })).sessions).toEqual(['u/2', 'u/3']);
    const both = await run(hub, { match: { createdBy: 'alice', label: 'userId=42' }, dryRun: true });
    expect(both.sessions).toEqual(['u/2']);
    const prefixed = await run(hub, { match: { createdBy: 'alice' }, prefix: 'v/', dryRun: true });
    expect(prefixed.sessions).toEqual(['v/5']);
    expect((await run(hub, { match: { createdBy: 'carol' }, dryRun: true })).sessions).toEqual([]);
    const first = await run(hub, { match: { createdBy: 'alice' }, dryRun: true, limit: 2 });
    expect(first).toMatchObject({ sessions: ['u/1', 'u/2'], next: 'u/2' });
    const second = await run(hub, { match: { createdBy: 'alice' }, dryRun: true, limit: 2, after: first.next });
    expect(second.sessions).toEqual(['v/5']);
    expect(second.next).toBeUndefined();
    expect(await heads(store)).toEqual(before);
    expect(await store.metadata.get('u/1')).toMatchObject({ createdBy: 'alice' });
  });

  it('answers bad requests with BAD_REQUEST and erases nothing', async () => {
    const before = await heads(store);
    const match = { createdBy: 'alice' };
    const cases: unknown[] = [
      { match: {}, dryRun: false, reason: 'r' },
      { match: { createdBy: '' }, dryRun: true },
      { match: { createdBy: 'x'.repeat(1025) }, dryRun: true },
      { match: { label: 'userId' }, dryRun: true },
      { match: { label: '=42' }, dryRun: true },
      { match: { userId: '42' }, dryRun: true },
      { match, reason: 'r' },
      { match, dryRun: 'no', reason: 'r' },
      { match, dryRun: false },
      { match, dryRun: false, reason: 'x'.repeat(1025) },
      { match, dryRun: false, reason: 'r', limit: 101 },
      { match, dryRun: true, limit: 0 },
      { match, dryRun: true, limit: 1.5 },
      { match, dryRun: false, reason: 'r', prefix: 'u' },
      { match, dryrun: false, dryRun: false, reason: 'r' },
      [match],
      'null',
    ];
    for (const body of cases) {
      const response = await post(hub, body);
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ error: { code: 'BAD_REQUEST' } });
    }
    const huge = await post(hub, { match, dryRun: false, reason: 'x'.repeat(20_000) });
    expect(huge.status).toBe(413);
    expect((await fetch(`${hub.url}/v1/erasures`)).status).toBe(405);
    expect(await heads(store)).toEqual(before);
  });

  it('a real run erases the matching sessions and only them, a page per request, and can be sent again', async () => {
    const body = { match: { createdBy: 'alice' }, dryRun: false, reason: 'erasure request 12', limit: 2 };
    const first = await run(hub, body);
    expect(first).toMatchObject({ dryRun: false, sessions: ['u/1', 'u/2'], failed: [], next: 'u/2' });
    expect(first.erased?.map((erased) => [erased.sessionId, erased.erased, erased.events])).toEqual([
      ['u/1', true, 2],
      ['u/2', true, 2],
    ]);
    expect((await store.head('v/5')).headSeq).toBe(1); // not reached yet: the next page
    const second = await run(hub, { ...body, after: first.next });
    expect(second).toMatchObject({ sessions: ['v/5'], failed: [] });
    expect(second.next).toBeUndefined();
    for (const sessionId of ['u/1', 'u/2', 'v/5']) {
      expect(await store.head(sessionId)).toEqual({ epoch: NO_EPOCH, headSeq: -1 });
      expect(await store.metadata.get(sessionId)).toBeUndefined();
    }
    for (const sessionId of ['u/3', 'u/4']) {
      expect((await store.head(sessionId)).headSeq).toBe(1);
      expect(await store.metadata.get(sessionId)).toMatchObject({ createdBy: 'bob' });
    }
    // Sent again from the start: nothing left to match, nothing changes.
    expect(await run(hub, body)).toMatchObject({ sessions: [], erased: [], failed: [] });
    expect((await run(hub, { match: { label: 'userId=42' }, dryRun: true })).sessions).toEqual(['u/3']);
  });
});

describe('POST /v1/erasures with tokens', () => {
  secureTest('needs the redact grant on every session, or on the prefix it names', async ({ secureHub }) => {
    await seed(secureHub.store);
    const before = await heads(secureHub.store);
    const body = { match: { createdBy: 'alice' }, dryRun: false, reason: 'r' };
    const tenant = await secureHub.mint({ redact: ['u/*'] });
    for (const token of [undefined, await secureHub.mint({ read: ['*'], append: ['*'] }), tenant]) {
      const response = await post(secureHub.hub, body, token);
      expect([401, 403]).toContain(response.status);
    }
    const otherTenant = await post(secureHub.hub, { ...body, prefix: 'v/' }, tenant);
    expect(otherTenant.status).toBe(403);
    expect(await heads(secureHub.store)).toEqual(before);
    const dry = await post(secureHub.hub, { ...body, dryRun: true, prefix: 'u/' }, tenant);
    expect(((await dry.json()) as ErasureReply).sessions).toEqual(['u/1', 'u/2']);
    const admin = await secureHub.mint({ admin: true });
    const erased = (await (await post(secureHub.hub, body, admin)).json()) as ErasureReply;
    expect(erased.sessions).toEqual(['u/1', 'u/2', 'v/5']);
    expect((await secureHub.store.head('u/3')).headSeq).toBe(1);
  });
});

describe('POST /v1/erasures when the store refuses a delete', () => {
  test('reports each failed session with its code, goes on, erases nothing it could not, and the rerun finishes', async ({
    admin,
    redis,
    openRedisStore,
  }) => {
    // A real refusal: the hub's Redis user may do everything but DEL (the delete script's command).
    await admin.call('ACL', 'SETUSER', 'nodel', 'on', 'nopass', '~*', '&*', '+@all', '-del');
    const full = await openRedisStore({ keyPrefix: 'fail:' });
    await seed(full);
    const limited = await openRedisStore({ keyPrefix: 'fail:', url: redis.url.replace('redis://', 'redis://nodel@') });
    const hub = await startHub({ store: limited });
    try {
      const body = { match: { createdBy: 'alice' }, dryRun: false, reason: 'r' };
      const reply = await run(hub, body);
      expect(reply.sessions).toEqual(['u/1', 'u/2', 'v/5']);
      expect(reply.erased).toEqual([]);
      expect(reply.failed?.map((failure) => failure.sessionId)).toEqual(['u/1', 'u/2', 'v/5']);
      // NOPERM is no error the hub expects of its store: INTERNAL on the wire, the cause in the hub's log.
      for (const failure of reply.failed ?? []) expect(failure.code).toBe('INTERNAL');
      expect((await full.head('u/1')).headSeq).toBe(1);
      await admin.call('ACL', 'SETUSER', 'nodel', '+del');
      const rerun = await run(hub, body);
      expect(rerun).toMatchObject({ sessions: ['u/1', 'u/2', 'v/5'], failed: [] });
      expect((await full.head('u/1')).epoch).toBe(NO_EPOCH);
    } finally {
      await hub.close();
    }
  });
});
