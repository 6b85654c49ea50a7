import { describe, expect, vi } from 'vitest';
import { deriveMessages, MessageProjector } from '../../shared/index.ts';
import { secureTest, type SecureHub } from '../security/secure-hub.ts';

const it = secureTest.extend('hubConfig', { scope: 'file' }, { snapshots: { everyEvents: 5 } });
const SESSION = 'acme/snap-http';
const user = (content: string) => ({ type: 'user/message', data: { role: 'user', content } });

describe('GET /v1/sessions/:id/snapshot', () => {
  let secure: SecureHub;
  const path = `/v1/sessions/${encodeURIComponent(SESSION)}/snapshot`;
  const get = (token: string | undefined, query = '') =>
    fetch(`${secure.hub.url}${path}${query}`, {
      headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    });

  it.beforeAll(async ({ secureHub }) => {
    secure = secureHub;
    const writer = await secure.mint({ append: [SESSION] });
    const events = Array.from({ length: 6 }, (_, index) => user(`m${index}`));
    const created = await fetch(`${secure.hub.url}/v1/sessions/${encodeURIComponent(SESSION)}/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${writer}` },
      body: JSON.stringify({ events }),
    });
    expect(created.status).toBe(201);
  });

  it('serves the latest snapshot to a reader: its state derives the messages of its prefix', async () => {
    const reader = await secure.mint({ read: ['acme/*'] });
    let body: { sessionId: string; epoch: string; seq: number; headSeq: number; state: unknown } | undefined;
    await vi.waitFor(
      async () => {
        const response = await get(reader);
        expect(response.status).toBe(200);
        body = (await response.json()) as typeof body;
        expect(body!.seq).toBe(5);
      },
      { timeout: 10_000, interval: 20 },
    );
    const head = await secure.store.head(SESSION);
    expect(body).toMatchObject({ sessionId: SESSION, epoch: head.epoch, headSeq: 5 });
    const log = await secure.store.read(SESSION, 0, 100);
    expect(MessageProjector.fromState(body!.state).messages).toEqual(deriveMessages(log));
    // atOrBefore below the latest: only the latest is kept, so the empty projection at -1 (page events instead).
    const early = (await (await get(reader, '?atOrBefore=3')).json()) as { seq: number; state: { length: number } };
    expect(early).toMatchObject({ seq: -1, state: { length: 0 } });
    const atLatest = (await (await get(reader, '?atOrBefore=5')).json()) as { seq: number };
    expect(atLatest.seq).toBe(5);
  });

  it('same auth as reads: no token 401, another tenant 403, a writer without read 403; bad query 400', async () => {
    expect((await get(undefined)).status).toBe(401);
    expect((await get(await secure.mint({ read: ['globex/*'] }))).status).toBe(403);
    expect((await get(await secure.mint({ append: [SESSION] }))).status).toBe(403);
    const reader = await secure.mint({ read: ['acme/*'] });
    const bad = await get(reader, '?atOrBefore=-1');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe('BAD_REQUEST');
  });
});
