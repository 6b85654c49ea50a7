import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { encodeMsgpackValue } from '../../shared/codec.ts';
import { MemoryStore } from '../../server/store/memory/memory-store.ts';
import { startHub, type TestHub } from '../helpers/hub.ts';
import { range, RawHubClient } from '../helpers/raw-hub-client.ts';

const user = (content: string) => ({ type: 'user/message', data: { role: 'user', content } });

interface ErrorBody {
  error: { code: string; message: string; details?: Record<string, unknown> };
}

describe('hub: HTTP API', () => {
  let hub: TestHub;
  const store = new MemoryStore();
  beforeAll(async () => {
    hub = await startHub({ store, nodeName: 'http-node', limits: { catchUpPageSize: 50, maxFrameBytes: 16_384 } });
  });
  afterAll(async () => {
    await hub.close();
    await store.close();
  });

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${hub.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  it('answers /healthz and /readyz', async () => {
    const health = await fetch(`${hub.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok', node: 'http-node' });
    const ready = await fetch(`${hub.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ready', engine: 'memory' });
  });

  it('appends with POST, with the same validation, conflicts and idempotency as the socket', async () => {
    const created = await post('/v1/sessions/h1/events', { events: [user('a'), user('b')], idempotencyKey: 'k' });
    expect(created.status).toBe(201);
    const ack = (await created.json()) as Record<string, unknown>;
    expect(ack).toMatchObject({ sessionId: 'h1', firstSeq: 0, lastSeq: 1, duplicate: false });
    expect(ack['epoch']).toBe((await store.head('h1')).epoch);

    const again = await post('/v1/sessions/h1/events', { events: [user('a'), user('b')], idempotencyKey: 'k' });
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ firstSeq: 0, lastSeq: 1, duplicate: true });

    const conflict = await post('/v1/sessions/h1/events', { events: [user('c')], expectedSeq: 0 });
    expect(conflict.status).toBe(409);
    expect(await conflict.json()).toEqual({
      error: { code: 'SEQ_CONFLICT', message: expect.any(String) as string, details: { headSeq: 1 } },
    });

    const invalid = await post('/v1/sessions/h1/events', { events: [{ type: 'turn/start', data: { turn: 0 } }] });
    expect(invalid.status).toBe(400);
    expect(((await invalid.json()) as ErrorBody).error).toMatchObject({ code: 'INVALID_EVENT', details: { seq: 2 } });

    const garbage = await post('/v1/sessions/h1/events', '{"events": [');
    expect(garbage.status).toBe(400);
    expect(((await garbage.json()) as ErrorBody).error.code).toBe('PARSE_ERROR');

    const shape = await post('/v1/sessions/h1/events', { events: 'nope' });
    expect(((await shape.json()) as ErrorBody).error).toMatchObject({ code: 'BAD_REQUEST' });

    // Data that is not lossless JSON, as JSON.parse hands it over (the route freezes what it decoded in place): a -0
    // deep inside is reported with its path, and nothing is written.
    const lossy = await post('/v1/sessions/h1/events', '{"events":[{"type":"app/note","data":{"a":[1,{"b":-0}]}}]}');
    expect(lossy.status).toBe(400);
    const lossyError = ((await lossy.json()) as ErrorBody).error;
    expect(lossyError.message).toContain('data.a[1].b');
    expect(lossyError.message).toContain('-0');

    const huge = await post('/v1/sessions/h1/events', { events: [user('x'.repeat(20_000))] });
    expect(huge.status).toBe(413);
    expect(((await huge.json()) as ErrorBody).error.code).toBe('FRAME_TOO_LARGE');
    expect((await store.head('h1')).headSeq).toBe(1);
  });

  it('serves the head and pages of events, with session ids that need escaping', async () => {
    const sessionId = 'acme/run 7';
    const path = `/v1/sessions/${encodeURIComponent(sessionId)}`;
    const writer = await RawHubClient.connect(hub.wsUrl);
    await writer.request({ type: 'append', sessionId, events: range(0, 119).map((n) => user(`${n}`)) });
    await writer.close();

    const head = await fetch(`${hub.url}${path}`);
    expect(await head.json()).toEqual({ sessionId, epoch: (await store.head(sessionId)).epoch, headSeq: 119 });

    const collected: number[] = [];
    let from = 0;
    for (;;) {
      const page = (await (await fetch(`${hub.url}${path}/events?from=${from}&limit=70`)).json()) as {
        events: { seq: number }[];
        next: number;
        headSeq: number;
      };
      expect(page.events.length).toBeLessThanOrEqual(50);
      collected.push(...page.events.map((event) => event.seq));
      if (page.next > page.headSeq) break;
      from = page.next;
    }
    expect(collected).toEqual(range(0, 119));

    const beyond = await fetch(`${hub.url}${path}/events?from=121`);
    expect(beyond.status).toBe(400);
    expect(((await beyond.json()) as ErrorBody).error).toMatchObject({
      code: 'SEQ_OUT_OF_RANGE',
      details: { headSeq: 119 },
    });
    const atHead = await fetch(`${hub.url}${path}/events?from=120`);
    expect(await atHead.json()).toMatchObject({ events: [], next: 120 });
    const badQuery = await fetch(`${hub.url}${path}/events?from=-1`);
    expect(((await badQuery.json()) as ErrorBody).error.code).toBe('BAD_REQUEST');
  });

  it('lists sessions and deletes one (admin): its subscribers get reset and the log starts over', async () => {
    const watcher = await RawHubClient.connect(hub.wsUrl);
    await watcher.request({ type: 'append', sessionId: 'doomed', events: [user('a'), user('b')] });
    const subscribed = await watcher.request({ type: 'subscribe', sessionId: 'doomed' });
    await watcher.waitFor((message) => message.type === 'live');
    const list = (await (await fetch(`${hub.url}/v1/sessions`)).json()) as { sessions: { id: string }[] };
    expect(list.sessions.map((session) => session.id)).toContain('doomed');

    const deleted = await fetch(`${hub.url}/v1/sessions/doomed`, { method: 'DELETE' });
    expect(deleted.status).toBe(200);
    expect(await deleted.json()).toEqual({ sessionId: 'doomed', deleted: true });
    // Deleted, the session has no epoch (''): the next first commit creates a new one, which the next events
    // frame tells the subscriber.
    const reset = await watcher.waitFor((message) => message.type === 'reset');
    expect(reset).toMatchObject({ type: 'reset', sessionId: 'doomed', epoch: '' });
    const ack = await watcher.request({ type: 'append', sessionId: 'doomed', events: [user('again')] });
    expect(ack).toMatchObject({ type: 'ack', firstSeq: 0 });
    const epoch = ack.type === 'ack' ? ack.epoch : '';
    expect([subscribed.type === 'subscribed' ? subscribed.epoch : '', '']).not.toContain(epoch);
    const events = await watcher.waitFor((m) => m.type === 'events' && m.events[0]?.seq === 0, {
      from: watcher.messages.indexOf(reset),
    });
    expect(events).toMatchObject({ epoch });
    expect(watcher.seqs('doomed')).toEqual([0]);
    const missing = await fetch(`${hub.url}/v1/sessions/never-there`, { method: 'DELETE' });
    expect(missing.status).toBe(404);
    await watcher.close();
  });

  it('reads an append body only as application/json or application/msgpack; every other type, or none, is 415', async () => {
    const body = JSON.stringify({ events: [{ type: 'x/y', data: 1 }] });
    // Types a browser may send across origins without a preflight (and look-alikes) must not become appends.
    for (const type of [
      'text/plain',
      'text/plain; charset=json',
      'application/x-www-form-urlencoded; x=json',
      'application/jsonx',
      'multipart/form-data; boundary=json',
    ]) {
      const refused = await post('/v1/sessions/media/events', body, { 'content-type': type });
      expect(refused.status).toBe(415);
      expect(await refused.json()).toMatchObject({ error: { code: 'UNSUPPORTED_MEDIA_TYPE' } });
    }
    const untyped = await fetch(`${hub.url}/v1/sessions/media/events`, { method: 'POST', body: new Blob([body]) });
    expect(untyped.status).toBe(415);
    expect((await store.head('media')).headSeq).toBe(-1);
    const typed = await post('/v1/sessions/media/events', body, { 'content-type': 'Application/JSON; charset=utf-8' });
    expect(typed.status).toBe(201);
    const packed = await fetch(`${hub.url}/v1/sessions/media/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/msgpack' },
      body: new Blob([Buffer.from(encodeMsgpackValue({ events: [{ type: 'x/y', data: 2 }] }))]),
    });
    expect(packed.status).toBe(201);
    expect((await store.head('media')).headSeq).toBe(1);
  });

  it('answers unknown routes with 404 and wrong methods with 405', async () => {
    const missing = await fetch(`${hub.url}/nope`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as ErrorBody).error.code).toBe('NOT_FOUND');
    const wrongMethod = await fetch(`${hub.url}/healthz`, { method: 'POST' });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET, HEAD');
    const putRefused = await fetch(`${hub.url}/v1/sessions/x`, { method: 'PUT' });
    expect(putRefused.headers.get('allow')).toBe('GET, PATCH, DELETE, HEAD');
    // Load balancers probe with HEAD: the GET answer without its body.
    for (const path of ['/healthz', '/readyz']) {
      const probe = await fetch(`${hub.url}${path}`, { method: 'HEAD' });
      expect(probe.status).toBe(200);
      expect(await probe.text()).toBe('');
    }
    expect((await fetch(`${hub.url}/v1/sessions/x`, { method: 'PUT' })).status).toBe(405);
    expect((await fetch(`${hub.url}/v1/sessions`, { method: 'POST' })).status).toBe(405);
  });

  it('exposes Prometheus metrics for connections, subscriptions, appends, deliveries, catch-up, errors and lag', async () => {
    const scrape = async (): Promise<string> => (await fetch(`${hub.url}/metrics`)).text();
    const before = await scrape();
    const client = await RawHubClient.connect(hub.wsUrl);
    await client.request({ type: 'append', sessionId: 'm1', events: [user('a')] });
    await client.request({ type: 'subscribe', sessionId: 'm1' });
    await client.waitFor((message) => message.type === 'live');
    const refused = await client.request({ type: 'append', sessionId: 'm1', events: [{ type: 'bad' }] });
    const refusedCode = refused.type === 'error' ? refused.code : 'none';
    let text = '';
    const value = (pattern: RegExp): number => Number(pattern.exec(text)?.[1] ?? Number.NaN);
    // Earlier tests' sockets may still be closing on the server side: wait for their gauges to settle.
    await vi.waitFor(async () => {
      const response = await fetch(`${hub.url}/metrics`);
      expect(response.headers.get('content-type')).toMatch(/text\/plain/);
      text = await response.text();
      expect(value(/^session_hub_connections(?:\{[^}]*\})? (\d+)$/m)).toBe(1);
      expect(value(/^session_hub_subscriptions(?:\{[^}]*\})? (\d+)$/m)).toBe(1);
      expect(value(/^session_hub_watched_sessions(?:\{[^}]*\})? (\d+)$/m)).toBe(1);
    });
    // Counters are cumulative over the whole file: compare with the scrape taken before this test's traffic.
    const grew = (pattern: RegExp): number => value(pattern) - Number(pattern.exec(before)?.[1] ?? 0);
    expect(grew(/^session_hub_appends_total\{result="committed"[^}]*\} (\d+)$/m)).toBe(1);
    expect(grew(/^session_hub_appends_total\{result="error"[^}]*\} (\d+)$/m)).toBe(1);
    expect(grew(/^session_hub_events_appended_total(?:\{[^}]*\})? (\d+)$/m)).toBe(1);
    expect(grew(/^session_hub_deliveries_total(?:\{[^}]*\})? (\d+)$/m)).toBe(1);
    expect(grew(/^session_hub_catchup_reads_total(?:\{[^}]*\})? (\d+)$/m)).toBeGreaterThanOrEqual(1);
    expect(grew(new RegExp(`^session_hub_errors_total\\{code="${refusedCode}"[^}]*\\} (\\d+)$`, 'm'))).toBe(1);
    // Default metrics keep their standard names; HTTP requests by method, handler and code; no node label anywhere.
    expect(text).toMatch(/^nodejs_eventloop_lag_p99_seconds \d/m);
    expect(text).toMatch(/^process_cpu_seconds_total \d/m);
    expect(text).toMatch(/^session_hub_http_requests_total\{method="GET",handler="\/metrics",code="200"\} [1-9]/m);
    expect(text).toMatch(/^session_hub_outbound_buffered_bytes_bucket\{le="1024"\} \d/m);
    expect(text).not.toMatch(/node="/);
    await client.close();
  });
});
