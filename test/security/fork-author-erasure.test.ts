// A fork is a session its requester made: its metadata names them (`createdBy`, as an append's author does for a new
// session), so the listing shows who made it and a subject erasure by `createdBy` finds the forks the subject made.
// Before, a fork carried no `createdBy`: the subject's forks (their own events, and the parent's prefix they read)
// were never matched, and the parent they hold stayed refused with HAS_FORKS on every rerun.
import { expect, vi } from 'vitest';
import { RawHubClient } from '../helpers/raw-hub-client.ts';
import { AUDIENCE, ISSUER, secureTest as it } from './secure-hub.ts';

const ALL = { read: ['*'], append: ['*'], admin: ['*'] };
const TURN = [
  { type: 'turn/start', data: { turn: 1 } },
  { type: 'message/user', data: { text: 'my address is 1 Main St' } },
  { type: 'turn/end', data: { turn: 1, reason: { kind: 'completed' } } },
];

interface ErasureReply {
  sessions: string[];
  erased?: { sessionId: string; erased: boolean }[];
  failed?: { sessionId: string; code: string }[];
}

it('a fork over HTTP or WebSocket records its requester as createdBy; a subject erasure finds and erases them', async ({
  secureHub,
}) => {
  const { hub, issuer } = secureHub;
  const tokenOf = (sub: string) => issuer.sign({ iss: ISSUER, aud: AUDIENCE, sub, sh: ALL });
  const alice = await tokenOf('alice');
  const call = async (method: string, path: string, body?: unknown, token = alice) => {
    const response = await fetch(`${hub.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const createdBy = async (id: string) => {
    const reply = await call('GET', `/v1/sessions/${encodeURIComponent(id)}/metadata`);
    return (reply.body['metadata'] as { createdBy?: string } | undefined)?.createdBy;
  };

  // bob's session; alice forks it over HTTP and over a WebSocket.
  expect((await call('POST', '/v1/sessions/fa%2Froot/events', { events: TURN }, await tokenOf('bob'))).status).toBe(
    201,
  );
  const byHttp = await call('POST', '/v1/sessions/fa%2Froot/forks', { atSeq: 2, newId: 'fa/http-fork' });
  expect(byHttp.status).toBe(201);
  const socket = await RawHubClient.connect(hub.wsUrl, { token: alice });
  const forked = await socket.request({ type: 'fork', sessionId: 'fa/root', atSeq: 2, newId: 'fa/ws-fork' });
  expect(forked).toMatchObject({ type: 'forked', sessionId: 'fa/ws-fork', parent: 'fa/root' });
  socket.ws.close();
  await socket.closed;

  // The metadata is written beside the fork (its own write): wait for it, then it names alice.
  await vi.waitFor(async () => expect(await createdBy('fa/http-fork')).toBe('alice'));
  await vi.waitFor(async () => expect(await createdBy('fa/ws-fork')).toBe('alice'));
  expect(await createdBy('fa/root')).toBe('bob');
  const listing = await call('GET', '/v1/sessions?prefix=fa/');
  const rows = listing.body['sessions'] as { id: string; createdBy?: string }[];
  expect(Object.fromEntries(rows.map((row) => [row.id, row.createdBy]))).toEqual({
    'fa/root': 'bob',
    'fa/http-fork': 'alice',
    'fa/ws-fork': 'alice',
  });

  // alice's subject erasure: her two forks, not bob's session.
  const match = { match: { createdBy: 'alice' }, prefix: 'fa/' };
  const dry = await call('POST', '/v1/erasures', { ...match, dryRun: true });
  expect((dry.body as unknown as ErasureReply).sessions).toEqual(['fa/http-fork', 'fa/ws-fork']);
  const real = await call('POST', '/v1/erasures', { ...match, dryRun: false, reason: 'erasure request 7' });
  const reply = real.body as unknown as ErasureReply;
  expect(reply.failed).toEqual([]);
  expect(reply.erased?.map((row) => [row.sessionId, row.erased])).toEqual([
    ['fa/http-fork', true],
    ['fa/ws-fork', true],
  ]);
  // bob's session stays, and has no forks left: it may be erased now (no HAS_FORKS).
  expect((await call('GET', '/v1/sessions/fa%2Froot/forks')).body['forks']).toEqual([]);
  expect((await call('GET', '/v1/sessions/fa%2Froot')).body['headSeq']).toBe(2);
});

it("a read-only token's fork is refused (FORBIDDEN) and leaves no session or metadata behind", async ({
  secureHub,
}) => {
  const { hub, issuer } = secureHub;
  const reader = await issuer.sign({ iss: ISSUER, aud: AUDIENCE, sub: 'reader', sh: { read: ['*'] } });
  const writer = await issuer.sign({ iss: ISSUER, aud: AUDIENCE, sub: 'writer', sh: ALL });
  const post = (path: string, body: unknown, token: string) =>
    fetch(`${hub.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  expect((await post('/v1/sessions/fb%2Froot/events', { events: TURN }, writer)).status).toBe(201);
  const refused = await post('/v1/sessions/fb%2Froot/forks', { atSeq: 2, newId: 'fb/nope' }, reader);
  expect(refused.status).toBe(403);
  expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('FORBIDDEN');
  const metadata = await fetch(`${hub.url}/v1/sessions/fb%2Fnope/metadata`, {
    headers: { authorization: `Bearer ${writer}` },
  });
  expect(metadata.status).toBe(404);
});

it("one real run erases a subject's session and its own forks of it (the parent after its forks, no HAS_FORKS)", async ({
  secureHub,
}) => {
  const { hub, issuer } = secureHub;
  const carol = await issuer.sign({ iss: ISSUER, aud: AUDIENCE, sub: 'carol', sh: ALL });
  const call = async (path: string, body: unknown) => {
    const response = await fetch(`${hub.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${carol}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  expect((await call('/v1/sessions/fc%2Fa/events', { events: TURN })).status).toBe(201);
  // A chain: fc/a <- fc/b <- fc/c, all carol's; ids sort parents first, so a single pass would refuse fc/a and fc/b.
  expect((await call('/v1/sessions/fc%2Fa/forks', { atSeq: 2, newId: 'fc/b' })).status).toBe(201);
  expect((await call('/v1/sessions/fc%2Fb/forks', { atSeq: 2, newId: 'fc/c' })).status).toBe(201);
  const match = { match: { createdBy: 'carol' }, prefix: 'fc/' };
  await vi.waitFor(async () => {
    const dry = await call('/v1/erasures', { ...match, dryRun: true });
    expect((dry.body as unknown as ErasureReply).sessions).toEqual(['fc/a', 'fc/b', 'fc/c']);
  });
  const real = (await call('/v1/erasures', { ...match, dryRun: false, reason: 'erasure request 9' }))
    .body as unknown as ErasureReply;
  expect(real.failed).toEqual([]);
  expect(real.erased?.map((row) => row.sessionId).sort()).toEqual(['fc/a', 'fc/b', 'fc/c']);
  expect((await call('/v1/erasures', { ...match, dryRun: true })).body['sessions']).toEqual([]);
});
