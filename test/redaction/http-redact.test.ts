// POST /v1/sessions/:id/redactions over a real hub on a real Redis, with tokens: who may, bounds, what changes.
import { describe, expect } from 'vitest';
import { REDACTED_TEXT, REDACTION_AUDIT_TYPE } from '../../shared/redaction.ts';
import { secureTest as it, type SecureHub } from '../security/secure-hub.ts';

const SECRET = 'AKIAIOSFODNN7EXAMPLE';
const SESSION = 'acme/redact-http';

describe('POST /v1/sessions/:id/redactions', () => {
  let secure: SecureHub;
  let admin: string;
  const path = (sessionId: string) => `/v1/sessions/${encodeURIComponent(sessionId)}/redactions`;
  const post = (token: string | undefined, body: unknown, sessionId = SESSION) =>
    fetch(`${secure.hub.url}${path(sessionId)}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const errorOf = async (response: Response) =>
    ((await response.json()) as { error?: { code: string; message: string } }).error;

  it.beforeAll(async ({ secureHub }) => {
    secure = secureHub;
    admin = await secure.mint({ admin: true });
    const result = await secure.store.commit({
      sessionId: SESSION,
      expectedSeq: 0,
      events: [
        { type: 'user/message', data: { role: 'user', content: `key ${SECRET}` }, surfaceOp: 'append' },
        { type: 'app/note', data: { text: 'harmless' } },
      ],
    });
    expect(result.status).toBe('committed');
  });

  it('refuses principals without the redact grant, telling them nothing, and changes nothing', async () => {
    const before = await secure.store.head(SESSION);
    const tokens = [
      undefined,
      await secure.mint({ read: ['*'], append: ['*'] }),
      await secure.mint({ redact: ['globex/*'], admin: ['globex/*'] }),
    ];
    for (const token of tokens) {
      const response = await post(token, { seqs: [0, 999], reason: 'r' });
      expect([401, 403]).toContain(response.status);
      const text = JSON.stringify(await response.json());
      expect(text).not.toContain('SEQ_OUT_OF_RANGE'); // the refusal comes before the session is looked at
      expect(text).not.toContain(SECRET);
    }
    expect(await secure.store.head(SESSION)).toEqual(before);
  });

  it('answers bad requests with typed errors and changes nothing', async () => {
    const before = await secure.store.read(SESSION, 0, 100);
    const head = await secure.store.head(SESSION);
    const cases: [unknown, number, string][] = [
      [{ seqs: [], reason: 'r' }, 400, 'BAD_REQUEST'],
      [{ seqs: [0], reason: '' }, 400, 'BAD_REQUEST'],
      [{ seqs: [0], reason: 'x'.repeat(2000) }, 400, 'BAD_REQUEST'],
      [{ seqs: [0], reason: 'x'.repeat(1024 * 1024) }, 413, 'FRAME_TOO_LARGE'],
      [{ seqs: Array.from({ length: 1_000_000 }, (_, index) => index), reason: 'r' }, 413, 'FRAME_TOO_LARGE'],
      [{ seqs: [0, 2], reason: 'r' }, 400, 'SEQ_OUT_OF_RANGE'],
      [{ seqs: [-1], reason: 'r' }, 400, 'BAD_REQUEST'],
      [{ seqs: '0', reason: 'r' }, 400, 'BAD_REQUEST'],
      [{ seqs: [0], reason: 'r', expectedEpoch: 'not-the-epoch' }, 409, 'SEQ_CONFLICT'],
      [[0], 400, 'BAD_REQUEST'],
      ['{', 400, 'PARSE_ERROR'],
    ];
    for (const [body, status, code] of cases) {
      const response = await post(admin, body);
      expect(response.status, JSON.stringify(body).slice(0, 60)).toBe(status);
      expect((await errorOf(response))?.code).toBe(code);
    }
    const other = await post(admin, { seqs: [0], reason: 'r' }, 'acme/never-written');
    expect((await errorOf(other))?.code).toBe('SEQ_OUT_OF_RANGE');
    expect(await secure.store.read(SESSION, 0, 100)).toEqual(before);
    expect(await secure.store.head(SESSION)).toEqual(head);
  });

  it('redacts for a principal holding redact on the session, and a retry changes nothing more', async () => {
    const redactor = await secure.mint({ redact: ['acme/*'] });
    const response = await post(redactor, { seqs: [0], reason: 'leaked AWS key' });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { seqs: number[]; auditSeq: number; epoch: string };
    expect(body).toMatchObject({ sessionId: SESSION, seqs: [0], unchanged: [], cold: [], auditSeq: 2 });
    const reader = await secure.mint({ read: ['*'] });
    const page = await fetch(`${secure.hub.url}/v1/sessions/${encodeURIComponent(SESSION)}/events`, {
      headers: { authorization: `Bearer ${reader}` },
    });
    const text = await page.text();
    expect(text).not.toContain(SECRET);
    expect(text).toContain(REDACTED_TEXT);
    const events = (JSON.parse(text) as { events: { type: string; data: { by?: string } }[] }).events;
    expect(events[2]).toMatchObject({
      type: REDACTION_AUDIT_TYPE,
      data: { by: 'tester', reason: 'leaked AWS key', seqs: [0] },
    });
    const again = await post(admin, { seqs: [0], reason: 'leaked AWS key' });
    expect(await again.json()).toMatchObject({ seqs: [], unchanged: [0], auditSeq: null, epoch: body.epoch });
    expect((await secure.store.head(SESSION)).headSeq).toBe(2);
  });
});
