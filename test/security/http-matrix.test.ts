import { request } from 'node:http';
import { describe, expect } from 'vitest';
import { MATRIX, matrixTitle, TARGET, type MatrixCase } from './matrix.ts';
import { secureTest as it, type SecureHub } from './secure-hub.ts';

const note = (n: number) => ({ type: 'test/note', data: { n } });
const statusOf = { UNAUTHORIZED: 401, TOKEN_EXPIRED: 401, FORBIDDEN: 403 } as const;

describe('security matrix over HTTP', () => {
  let secure: SecureHub;
  let refused = 0;
  const eventsPath = `/v1/sessions/${encodeURIComponent(TARGET)}/events`;

  const call = (action: 'read' | 'append', token: string | undefined, query = '') =>
    fetch(`${secure.hub.url}${eventsPath}${query}`, {
      method: action === 'read' ? 'GET' : 'POST',
      headers: {
        'content-type': 'application/json',
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      },
      ...(action === 'append' ? { body: JSON.stringify({ events: [note(666)] }) } : {}),
    });

  it.beforeAll(async ({ secureHub }) => {
    secure = secureHub;
    const created = await call('append', await secure.mint({ append: [TARGET] }));
    expect(created.status).toBe(201);
  });

  it.each(MATRIX.map((entry) => [matrixTitle(entry), entry] as const))('%s', async (_title, entry: MatrixCase) => {
    const response = await call(entry.action, await entry.token(secure));
    const body = (await response.json()) as {
      error?: { code: string; details?: { reason?: string } };
      events?: unknown;
    };
    expect(response.status).toBe(statusOf[entry.code]);
    expect(body.error?.code).toBe(entry.code);
    expect(body.error?.details?.reason).toEqual(expect.any(String));
    expect(body.events).toBeUndefined();
    expect((await secure.store.head(TARGET)).headSeq).toBe(0);
    refused++;
  });

  it('serves the right token from the Authorization header and ?token= (positive control)', async () => {
    const reader = await secure.mint({ read: ['acme/*'] });
    const page = await call('read', reader);
    expect(page.status).toBe(200);
    expect(((await page.json()) as { events: unknown[] }).events).toHaveLength(1);
    const viaQuery = await fetch(`${secure.hub.url}${eventsPath}?token=${encodeURIComponent(reader)}`);
    expect(viaQuery.status).toBe(200);
    const head = await fetch(`${secure.hub.url}/v1/sessions/${encodeURIComponent(TARGET)}`, {
      headers: { authorization: `Bearer ${reader}` },
    });
    expect(await head.json()).toMatchObject({ sessionId: TARGET, headSeq: 0 });
  });

  it('admin routes: listing needs admin on every session, deleting needs admin on the session', async () => {
    const admin = await secure.mint({ admin: true });
    const tenantAdmin = await secure.mint({ admin: ['globex/*'] });
    const reader = await secure.mint({ read: ['*'] });
    const list = (token: string) =>
      fetch(`${secure.hub.url}/v1/sessions`, { headers: { authorization: `Bearer ${token}` } });
    expect((await list(reader)).status).toBe(403);
    expect((await list(tenantAdmin)).status).toBe(403);
    // A tenant administrator lists the tenant's sessions, and only those.
    await secure.store.commit({ sessionId: 'globex/s-1', expectedSeq: 0, events: [{ type: 'test/e', data: {} }] });
    const listTenant = (token: string, prefix: string) =>
      fetch(`${secure.hub.url}/v1/sessions?prefix=${encodeURIComponent(prefix)}`, {
        headers: { authorization: `Bearer ${token}` },
      });
    const tenant = await listTenant(tenantAdmin, 'globex/');
    expect(tenant.status).toBe(200);
    const ids = (reply: unknown): string[] => (reply as { sessions: { id: string }[] }).sessions.map((row) => row.id);
    expect(ids(await tenant.json())).toEqual(['globex/s-1']);
    expect((await listTenant(tenantAdmin, 'initech/')).status).toBe(403);
    expect((await listTenant(reader, 'globex/')).status).toBe(403);
    expect((await listTenant(tenantAdmin, 'globex')).status).toBe(400);
    const everything = await listTenant(admin, 'globex/');
    expect(ids(await everything.json())).toEqual(['globex/s-1']);
    const listed = await list(admin);
    expect(listed.status).toBe(200);
    expect(ids(await listed.json())).toContain(TARGET);
    const refusedDelete = await fetch(`${secure.hub.url}/v1/sessions/${encodeURIComponent(TARGET)}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${tenantAdmin}` },
    });
    expect(refusedDelete.status).toBe(403);
    expect((await secure.store.head(TARGET)).headSeq).toBe(0);
  });

  it('refuses an Authorization header that is not "Bearer <token>" with 401 bad-auth-scheme', async () => {
    const response = await fetch(`${secure.hub.url}/v1/sessions/alice%2F1`, {
      headers: { authorization: 'Basic YWxpY2U6c2VjcmV0' },
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({
      error: { code: 'UNAUTHORIZED', details: { reason: 'bad-auth-scheme' } },
    });
  });

  it('refuses two Authorization headers with 401 bad-auth-scheme, whichever comes first', async () => {
    const reader = await secure.mint({ read: ['acme/*'] });
    // fetch cannot send a header twice; node:http sends one header line per array element.
    const get = (authorization: string[]) =>
      new Promise<{ status: number | undefined; body: unknown }>((resolve, reject) => {
        const sent = request(`${secure.hub.url}${eventsPath}`, (response) => {
          let text = '';
          response.on('data', (chunk: Buffer) => (text += chunk.toString()));
          response.on('end', () => resolve({ status: response.statusCode, body: JSON.parse(text) as unknown }));
        });
        sent.setHeader('authorization', authorization);
        sent.on('error', reject);
        sent.end();
      });
    expect((await get([`Bearer ${reader}`])).status).toBe(200); // positive control
    for (const headers of [
      [`Bearer ${reader}`, 'Basic YWxpY2U6c2VjcmV0'],
      ['Basic YWxpY2U6c2VjcmV0', `Bearer ${reader}`],
      [`Bearer ${reader}`, `Bearer ${reader}`],
    ]) {
      const response = await get(headers);
      expect(response.status).toBe(401);
      expect(response.body).toMatchObject({ error: { code: 'UNAUTHORIZED', details: { reason: 'bad-auth-scheme' } } });
    }
  });

  it('refused every case of the matrix', () => {
    console.log(`security matrix (HTTP): ${refused} of ${MATRIX.length} hostile requests refused with their code`);
    expect(MATRIX.length).toBe(36);
    expect(refused).toBe(MATRIX.length);
  });
});
