// POST /v1/sessions/:id/erasure over a real hub on a real Redis, with tokens: what goes (every key of the session),
// who may, bad input, the audit line, watchers reset.
import { Writable } from 'node:stream';
import type { Redis } from 'ioredis';
import { pino } from 'pino';
import { describe, expect, vi } from 'vitest';
import { MessageProjector } from '../../shared/index.ts';
import { NO_EPOCH } from '../../server/store/event-store.ts';
import type { TestHub } from '../helpers/hub.ts';
import { RawHubClient } from '../helpers/raw-hub-client.ts';
import { secureTest, type SecureHub } from '../security/secure-hub.ts';

const SECRET = 'personal-data-4242';
const WAIT = { timeout: 10_000, interval: 20 };

/** The hub's log lines, as the hub wrote them (JSON). */
const logLines: Record<string, unknown>[] = [];
const logSink = new Writable({
  write(chunk: Buffer, _encoding, done) {
    for (const line of chunk.toString('utf8').split('\n')) if (line !== '') logLines.push(JSON.parse(line) as never);
    done();
  },
});
const it = secureTest.extend('hubConfig', { scope: 'file' }, { logger: pino({ level: 'info' }, logSink) });

describe('POST /v1/sessions/:id/erasure', () => {
  let secure: SecureHub;
  let admin: string;
  const url = (sessionId: string, tail = '/erasure') =>
    `${secure.hub.url}/v1/sessions/${encodeURIComponent(sessionId)}${tail}`;
  const request = (method: string, path: string, token: string | undefined, body?: unknown, headers = {}) =>
    fetch(path, {
      method,
      headers: {
        'content-type': 'application/json',
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
  const erase = (sessionId: string, token: string | undefined, body: unknown = { reason: 'GDPR request 17' }) =>
    request('POST', url(sessionId), token, body);
  const keysOf = async (redis: Redis, id: string) => {
    const found: string[] = [];
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `*{${id}}*`, 'COUNT', 1000);
      found.push(...keys);
      cursor = next;
    } while (cursor !== '0');
    return found;
  };

  /** A session with events (one under an idempotency key), labels, a snapshot: every kind of key it can have. */
  async function fullSession(sessionId: string): Promise<void> {
    const events = [
      { type: 'user/message', data: { role: 'user', content: `my number is ${SECRET}` } },
      { type: 'app/note', data: { text: 'second' } },
    ];
    const appended = await request('POST', url(sessionId, '/events'), admin, { events }, { 'idempotency-key': 'k1' });
    expect(appended.status).toBe(201);
    const labelled = await request('PATCH', url(sessionId, ''), admin, { title: 'Trip', labels: { userId: '42' } });
    expect(labelled.status).toBe(200);
    const stored = await secure.store.read(sessionId, 0, 10);
    const projector = new MessageProjector();
    projector.applyAll(stored);
    const { epoch } = await secure.store.head(sessionId);
    const put = await secure.store.snapshots.put(sessionId, { epoch, seq: 1, state: projector.exportState() });
    expect(put).toBe('written');
  }

  it.beforeAll(async ({ secureHub }) => {
    secure = secureHub;
    admin = await secure.mint({ admin: true, read: ['*'], append: ['*'] });
  });

  it('removes every key of the session from Redis and answers what was removed', async ({ admin: redis }) => {
    await fullSession('acme/full');
    await fullSession('acme/other');
    expect((await keysOf(redis, 'acme/full')).length).toBeGreaterThanOrEqual(5);
    const response = await erase('acme/full', admin);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      sessionId: 'acme/full',
      erased: true,
      events: 2,
      headSeq: 1,
      snapshot: true,
      metadata: true,
    });
    expect(await keysOf(redis, 'acme/full')).toEqual([]);
    expect(await secure.store.head('acme/full')).toEqual({ epoch: NO_EPOCH, headSeq: -1 });
    expect(await secure.store.metadata.get('acme/full')).toBeUndefined();
    expect((await secure.store.snapshots.get('acme/full')).status).toBe('none');
    // The idempotency key went too: the same key commits anew, at seq 0 of a new epoch.
    const again = await request(
      'POST',
      url('acme/full', '/events'),
      admin,
      {
        events: [{ type: 'app/note', data: { text: 'new' } }],
      },
      { 'idempotency-key': 'k1' },
    );
    expect(await again.json()).toMatchObject({ firstSeq: 0, duplicate: false });
    // Another session is untouched.
    expect((await secure.store.head('acme/other')).headSeq).toBe(1);
    expect(await secure.store.metadata.get('acme/other')).toMatchObject({ labels: { userId: '42' } });
    // Erasing again removes nothing and says so.
    await erase('acme/full', admin);
    const twice = await erase('acme/full', admin);
    expect(await twice.json()).toMatchObject({ erased: false, events: 0, snapshot: false, metadata: false });
  });

  it('writes one audit line per erasure: who, when, which session, why; never the content', async () => {
    await fullSession('acme/audited');
    const before = logLines.length;
    expect((await erase('acme/audited', admin, { reason: 'ticket 99' })).status).toBe(200);
    const audit = logLines.slice(before).filter((line) => line['audit'] === 'erasure');
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ by: 'tester', sessionId: 'acme/audited', reason: 'ticket 99', erased: true });
    expect(Number.isNaN(Date.parse(String(audit[0]!['at'])))).toBe(false);
    expect(JSON.stringify(logLines)).not.toContain(SECRET);
  });

  it('resets the watchers of the erased session', async () => {
    await fullSession('acme/watched');
    const token = await secure.mint({ read: ['acme/*'] });
    const watcher = await RawHubClient.connect(`${secure.hub.wsUrl}?token=${token}`);
    await watcher.request({ type: 'subscribe', sessionId: 'acme/watched' });
    await vi.waitFor(() => expect(watcher.seqs('acme/watched')).toEqual([0, 1]), WAIT);
    expect((await erase('acme/watched', admin)).status).toBe(200);
    const reset = await watcher.waitFor((message) => message.type === 'reset');
    expect(reset).toMatchObject({ type: 'reset', sessionId: 'acme/watched', epoch: NO_EPOCH });
    await watcher.close();
  });

  it('resets the watchers on the other nodes too, and their nodes append to the erased id from seq 0', async ({
    redisHubs,
  }) => {
    const [a, b] = redisHubs.cluster.nodes as [TestHub, TestHub];
    const writer = await RawHubClient.connect(a.wsUrl);
    await writer.request({ type: 'append', sessionId: 'multi/1', events: [{ type: 'app/note', data: { SECRET } }] });
    const watcher = await RawHubClient.connect(b.wsUrl);
    await watcher.request({ type: 'subscribe', sessionId: 'multi/1' });
    await vi.waitFor(() => expect(watcher.seqs('multi/1')).toEqual([0]), WAIT);
    const erased = await fetch(`${a.url}/v1/sessions/multi%2F1/erasure`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ reason: 'r' }),
    });
    expect(await erased.json()).toMatchObject({ erased: true, events: 1 });
    const reset = await watcher.waitFor((message) => message.type === 'reset');
    expect(reset).toMatchObject({ sessionId: 'multi/1', epoch: NO_EPOCH });
    const ack = await watcher.request({
      type: 'append',
      sessionId: 'multi/1',
      events: [{ type: 'app/note', data: {} }],
    });
    expect(ack).toMatchObject({ type: 'ack', firstSeq: 0 });
    await writer.close();
    await watcher.close();
  });

  it('is allowed by the redact grant alone, and refused (401/403, nothing changed) without it', async () => {
    await fullSession('acme/guarded');
    const head = await secure.store.head('acme/guarded');
    const refused = [
      undefined,
      await secure.mint({ read: ['*'], append: ['*'] }),
      await secure.mint({ redact: ['globex/*'], admin: ['globex/*'] }),
    ];
    for (const token of refused) {
      const response = await erase('acme/guarded', token);
      expect([401, 403]).toContain(response.status);
      expect(JSON.stringify(await response.json())).not.toContain(SECRET);
    }
    expect(await secure.store.head('acme/guarded')).toEqual(head);
    const redactor = await secure.mint({ redact: ['acme/*'] });
    expect((await erase('acme/guarded', redactor)).status).toBe(200);
    expect((await secure.store.head('acme/guarded')).epoch).toBe(NO_EPOCH);
  });

  it('answers bad requests with typed errors and changes nothing', async () => {
    await fullSession('acme/bad');
    const head = await secure.store.head('acme/bad');
    const cases: [unknown, number, string][] = [
      [{}, 400, 'BAD_REQUEST'],
      [{ reason: '' }, 400, 'BAD_REQUEST'],
      [{ reason: 7 }, 400, 'BAD_REQUEST'],
      [{ reason: 'x'.repeat(1025) }, 400, 'BAD_REQUEST'],
      [{ reason: 'r', erase: 'everything' }, 400, 'BAD_REQUEST'],
      [[{ reason: 'r' }], 400, 'BAD_REQUEST'],
      ['{"reason": ', 400, 'PARSE_ERROR'],
      [{ reason: 'x'.repeat(20_000) }, 413, 'FRAME_TOO_LARGE'],
    ];
    for (const [body, status, code] of cases) {
      const response = await erase('acme/bad', admin, body);
      expect(response.status).toBe(status);
      expect(await response.json()).toMatchObject({ error: { code } });
    }
    const wrongMethod = await request('GET', url('acme/bad'), admin);
    expect(wrongMethod.status).toBe(405);
    const badId = await request('POST', `${secure.hub.url}/v1/sessions/%E0%A4%A/erasure`, admin, { reason: 'r' });
    expect(badId.status).toBe(400);
    expect(await secure.store.head('acme/bad')).toEqual(head);
    expect(await secure.store.metadata.get('acme/bad')).toMatchObject({ labels: { userId: '42' } });
  });
});
