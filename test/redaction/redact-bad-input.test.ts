// Bad redaction requests (issue #30) through the SDK (`client.redact`), raw HTTP and the WebSocket, on a real hub
// with tokens on a real Redis: unknown or future seqs, seqs only another session has, an empty list, a 10^6-entry
// list, a 1 MB reason each get a typed error and change nothing (neither session); a principal without `redact`
// gets FORBIDDEN whatever it asks, the same answer for any session or body, so it learns nothing.
import { afterAll, describe, expect } from 'vitest';
import type { SessionEvent } from '../../shared/index.ts';
import type { SessionHead } from '../../server/store/event-store.ts';
import { RawHubClient } from '../helpers/raw-hub-client.ts';
import { clientPool } from '../helpers/client-pool.ts';
import { secureTest as it, type SecureHub } from '../security/secure-hub.ts';

const SMALL = 'acme/bad-redact-small';
const BIG = 'acme/bad-redact-big';
const NEVER = 'acme/bad-redact-never-written';
const SECRET = 'AKIAIOSFODNN7EXAMPLE';

const note = (index: number) => ({ type: 'app/note', data: { text: `${SECRET} ${index}` } });

describe('bad redaction requests change nothing', () => {
  let secure: SecureHub;
  const pool = clientPool();
  const sdk = (token: string) => pool.connect(secure.hub, { token });
  const post = (token: string, sessionId: string, body: unknown) =>
    fetch(`${secure.hub.url}/v1/sessions/${encodeURIComponent(sessionId)}/redactions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  /** Both sessions' logs and heads (epochs included), to compare before and after. */
  const state = async (): Promise<[readonly SessionEvent[], SessionHead][]> =>
    Promise.all(
      [SMALL, BIG, NEVER].map(
        async (id) => [await secure.store.read(id, 0, 100), await secure.store.head(id)] as const,
      ),
    ) as Promise<[readonly SessionEvent[], SessionHead][]>;

  it.beforeAll(async ({ secureHub }) => {
    secure = secureHub;
    for (const [sessionId, count] of [
      [SMALL, 2],
      [BIG, 6],
    ] as const) {
      const events = Array.from({ length: count }, (_, index) => note(index));
      expect((await secure.store.commit({ sessionId, expectedSeq: 0, events })).status).toBe('committed');
    }
  });
  afterAll(() => pool.closeAll());

  const huge = Array.from({ length: 1_000_000 }, (_, index) => index);
  const cases: readonly { name: string; sessionId: string; seqs: number[]; reason: string; code: string }[] = [
    { name: 'an empty list', sessionId: SMALL, seqs: [], reason: 'r', code: 'BAD_REQUEST' },
    { name: 'a future seq', sessionId: SMALL, seqs: [0, 2], reason: 'r', code: 'SEQ_OUT_OF_RANGE' },
    { name: 'seqs only another session has', sessionId: SMALL, seqs: [4, 5], reason: 'r', code: 'SEQ_OUT_OF_RANGE' },
    { name: 'a session never written', sessionId: NEVER, seqs: [0], reason: 'r', code: 'SEQ_OUT_OF_RANGE' },
    { name: 'a negative seq', sessionId: SMALL, seqs: [-1], reason: 'r', code: 'BAD_REQUEST' },
    { name: 'a fractional seq', sessionId: SMALL, seqs: [0.5], reason: 'r', code: 'BAD_REQUEST' },
    { name: 'an empty reason', sessionId: SMALL, seqs: [0], reason: '', code: 'BAD_REQUEST' },
    { name: 'a 10^6-entry list', sessionId: BIG, seqs: huge, reason: 'r', code: 'FRAME_TOO_LARGE' },
    { name: 'a 1 MB reason', sessionId: BIG, seqs: [0], reason: 'x'.repeat(1024 * 1024), code: 'FRAME_TOO_LARGE' },
  ];

  it('SDK: each bad request rejects with its code and changes neither session', async () => {
    const before = await state();
    const client = sdk(await secure.mint({ redact: ['acme/*'] }));
    for (const { name, sessionId, seqs, reason, code } of cases) {
      await expect(client.redact(sessionId, seqs, reason), name).rejects.toMatchObject({ code });
    }
    expect(await state()).toEqual(before);
  });

  it('HTTP: the same requests get the same codes, with their statuses, and change nothing', async () => {
    const before = await state();
    const token = await secure.mint({ redact: ['acme/*'] });
    const statuses: Record<string, number> = { BAD_REQUEST: 400, SEQ_OUT_OF_RANGE: 400, FRAME_TOO_LARGE: 413 };
    for (const { name, sessionId, seqs, reason, code } of cases) {
      const response = await post(token, sessionId, { seqs, reason });
      const body = (await response.json()) as { error: { code: string; message: string } };
      expect({ status: response.status, code: body.error.code }, name).toEqual({ status: statuses[code], code });
      expect(body.error.message, name).not.toContain(SECRET);
    }
    expect(await state()).toEqual(before);
  });

  it('a principal without redact gets one and the same FORBIDDEN for any session and body (SDK and HTTP)', async () => {
    const before = await state();
    const tokens = [
      await secure.mint({ read: ['*'], append: ['*'] }),
      await secure.mint({ redact: ['globex/*'], admin: ['globex/*'] }),
    ];
    for (const token of tokens) {
      const client = sdk(token);
      const answers = new Set<string>();
      for (const [sessionId, seqs] of [
        [SMALL, [0]],
        [SMALL, [99]],
        [BIG, [5]],
        [NEVER, [0]],
        [SMALL, []],
      ] as const) {
        const error = (await client.redact(sessionId, seqs, 'r').catch((caught: unknown) => caught)) as {
          code?: string;
          message?: string;
          details?: unknown;
        };
        expect(error.code).toBe('FORBIDDEN');
        answers.add(JSON.stringify([error.message, error.details]).replaceAll(sessionId, '<id>'));
        const response = await post(token, sessionId, { seqs, reason: 'r' });
        expect(response.status).toBe(403);
        answers.add(JSON.stringify(await response.json()).replaceAll(JSON.stringify(sessionId).slice(1, -1), '<id>'));
      }
      // A malformed or oversized body is not even read.
      for (const body of ['{', JSON.stringify({ seqs: [0], reason: 'x'.repeat(300 * 1024) })]) {
        const response = await post(token, SMALL, body);
        expect(response.status).toBe(403);
        answers.add(JSON.stringify(await response.json()).replaceAll(SMALL, '<id>'));
      }
      // One SDK message and one HTTP body for every case: nothing tells the sessions or seqs apart.
      expect(answers.size).toBe(2);
      expect([...answers].join()).not.toContain('SEQ_OUT_OF_RANGE');
    }
    expect(await state()).toEqual(before);
  });

  it('WebSocket: there is no redact message; a frame asking for one is refused and changes nothing', async () => {
    const before = await state();
    const raw = await RawHubClient.connect(secure.hub.wsUrl, { token: await secure.mint({ admin: true }) });
    try {
      const reply = await raw.request({ type: 'redact', sessionId: SMALL, seqs: [0], reason: 'r' });
      expect(reply).toMatchObject({ type: 'error', code: 'BAD_REQUEST' });
    } finally {
      await raw.close();
    }
    expect(await state()).toEqual(before);
  });
});
