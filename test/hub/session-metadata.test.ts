import { describe, expect, vi } from 'vitest';
import type { MetadataMessage, ServerMessage } from '../../shared/protocol.ts';
import { METADATA_LIMITS } from '../../shared/session-metadata.ts';
import { test } from '../helpers/fixtures.ts';
import type { TestHub } from '../helpers/hub.ts';
import { RawHubClient } from '../helpers/raw-hub-client.ts';
import { secureTest } from '../security/secure-hub.ts';

const note = (n: number) => ({ type: 'test/note', data: { n } });
const it = test.extend('keyPrefix', { scope: 'file' }, 'meta:');
const WAIT = { timeout: 10_000, interval: 10 };
/** A hub whose principals may append (and set metadata) once a second. */
const limited = test.extend(
  'hubConfig',
  { scope: 'file' },
  {
    limits: { principalAppendsPerSecond: 1, principalAppendBurst: 1 },
  },
);

interface ErrorBody {
  error: { code: string; details?: { field?: string } };
}

function patch(node: TestHub, sessionId: string, body: unknown, token?: string): Promise<Response> {
  return fetch(`${node.url}/v1/sessions/${encodeURIComponent(sessionId)}`, {
    method: 'PATCH',
    headers: {
      'content-type': 'application/json',
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify(body),
  });
}

async function metadataOf(node: TestHub, sessionId: string, token?: string): Promise<Response> {
  return fetch(`${node.url}/v1/sessions/${encodeURIComponent(sessionId)}/metadata`, {
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
  });
}

const metadataFrames = (client: RawHubClient, sessionId: string): MetadataMessage[] =>
  client.messages.filter(
    (message: ServerMessage): message is MetadataMessage =>
      message.type === 'metadata' && message.sessionId === sessionId && message.id === undefined,
  );

describe('hub: session metadata over HTTP and WebSocket, across two nodes', () => {
  let a: TestHub;
  let b: TestHub;

  it.beforeAll(({ redisHubs }) => {
    [a, b] = redisHubs.cluster.nodes as [TestHub, TestHub];
  });

  it('records creation at the first append, merges patches from either node, and serves them from both', async () => {
    const writer = await RawHubClient.connect(a.wsUrl);
    const appended = await writer.request({ type: 'append', sessionId: 'm/1', events: [note(0)] });
    expect(appended.type).toBe('ack');
    await vi.waitFor(async () => {
      const body = (await (await metadataOf(b, 'm/1')).json()) as { metadata: { createdBy?: string } };
      expect(body.metadata.createdBy).toBe('anonymous');
    }, WAIT);
    const changed = await patch(b, 'm/1', { title: 'Trip to Lyon', labels: { team: 'red' } });
    expect(changed.status).toBe(200);
    const { metadata } = (await changed.json()) as { metadata: { createdAt: number; rev: number } };
    expect(metadata).toMatchObject({ title: 'Trip to Lyon', labels: { team: 'red' }, createdBy: 'anonymous' });
    expect(metadata.createdAt).toBe(appended.type === 'ack' ? appended.time : -1);
    expect(await (await metadataOf(a, 'm/1')).json()).toEqual({ sessionId: 'm/1', metadata });
    await writer.close();
  });

  it('sends metadata frames to subscriptions that ask, on every node: the current one, then each change', async () => {
    const writer = await RawHubClient.connect(a.wsUrl);
    await writer.request({ type: 'append', sessionId: 'm/2', events: [note(0)] });
    const watcher = await RawHubClient.connect(b.wsUrl);
    const plain = await RawHubClient.connect(b.wsUrl);
    await watcher.request({ type: 'subscribe', sessionId: 'm/2', metadata: true });
    await plain.request({ type: 'subscribe', sessionId: 'm/2' });
    await vi.waitFor(() => expect(metadataFrames(watcher, 'm/2').length).toBeGreaterThan(0), WAIT);
    const first = metadataFrames(watcher, 'm/2')[0]!;
    // Set through the WebSocket on the other node: the writer's reply carries its request id.
    const reply = await writer.request({ type: 'setMetadata', sessionId: 'm/2', patch: { title: 'Renamed' } });
    expect(reply).toMatchObject({ type: 'metadata', sessionId: 'm/2', metadata: { title: 'Renamed' } });
    await vi.waitFor(() => {
      const titles = metadataFrames(watcher, 'm/2').map((frame) => frame.metadata.title);
      expect(titles[titles.length - 1]).toBe('Renamed');
    }, WAIT);
    const revs = metadataFrames(watcher, 'm/2').map((frame) => frame.metadata.rev);
    expect(revs).toEqual([...revs].sort((x, y) => x - y));
    expect(new Set(revs).size).toBe(revs.length);
    expect(first.metadata.rev).toBeLessThan(revs[revs.length - 1]!);
    await writer.request({ type: 'append', sessionId: 'm/2', events: [note(1)] });
    await plain.waitFor((message) => message.type === 'events' && message.events.some((event) => event.seq === 1));
    expect(plain.messages.some((message) => message.type === 'metadata')).toBe(false);
    await Promise.all([writer.close(), watcher.close(), plain.close()]);
  });

  it('follows a session deleted and written again: its new metadata (rev starting over) reaches the watcher', async () => {
    const post = (node: TestHub, time: number) =>
      fetch(`${node.url}/v1/sessions/m%2Freborn/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ events: [note(0)], time }),
      });
    const now = Date.now();
    expect((await post(a, now - 20_000)).status).toBe(201);
    expect((await patch(a, 'm/reborn', { title: 'first life', labels: { a: '1' } })).status).toBe(200);
    expect((await patch(a, 'm/reborn', { labels: { b: '2' } })).status).toBe(200);
    const watcher = await RawHubClient.connect(b.wsUrl);
    await watcher.request({ type: 'subscribe', sessionId: 'm/reborn', metadata: true });
    await vi.waitFor(() => expect(metadataFrames(watcher, 'm/reborn').at(-1)?.metadata.rev).toBe(3), WAIT);
    expect((await fetch(`${a.url}/v1/sessions/m%2Freborn`, { method: 'DELETE' })).status).toBe(200);
    expect((await post(a, now - 10_000)).status).toBe(201);
    await vi.waitFor(async () => {
      const body = (await (await metadataOf(a, 'm/reborn')).json()) as { metadata: { createdAt?: number } };
      expect(body.metadata.createdAt).toBe(now - 10_000);
    }, WAIT);
    expect((await patch(a, 'm/reborn', { title: 'second life' })).status).toBe(200);
    await vi.waitFor(() => {
      const last = metadataFrames(watcher, 'm/reborn').at(-1)?.metadata;
      expect(last).toMatchObject({ title: 'second life', labels: {}, createdAt: now - 10_000 });
    }, WAIT);
    await watcher.close();
  });

  it('refuses bad patches with INVALID_METADATA naming the field, and changes nothing', async () => {
    const writer = await RawHubClient.connect(a.wsUrl);
    await writer.request({ type: 'append', sessionId: 'm/3', events: [note(0)] });
    expect((await patch(a, 'm/3', { title: 'kept', labels: { a: '1' } })).status).toBe(200);
    const tooMany = Object.fromEntries(Array.from({ length: METADATA_LIMITS.labels }, (_, i) => [`k${i}`, 'v']));
    const cases: [unknown, string][] = [
      [{ title: 42 }, 'title'],
      [{ title: 'x'.repeat(METADATA_LIMITS.titleUnits + 1) }, 'title'],
      [{ labels: { 'no spaces': 'v' } }, 'labels.no spaces'],
      [{ labels: { a: { nested: true } } }, 'labels.a'],
      [{ labels: tooMany }, 'labels'],
      [{ owner: 'me' }, 'owner'],
      [['title'], ''],
    ];
    for (const [body, field] of cases) {
      const refused = await patch(b, 'm/3', body);
      expect(refused.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      const error = ((await refused.json()) as ErrorBody).error;
      expect(error.code).toBe('INVALID_METADATA');
      expect(error.details?.field).toBe(field);
    }
    const overWs = await writer.request({ type: 'setMetadata', sessionId: 'm/3', patch: { title: 'bell\u0007' } });
    expect(overWs).toMatchObject({ type: 'error', code: 'INVALID_METADATA', details: { field: 'title' } });
    const notAnObject = await writer.request({ type: 'setMetadata', sessionId: 'm/3', patch: 'title' });
    expect(notAnObject).toMatchObject({ type: 'error', code: 'BAD_REQUEST' });
    const kept = (await (await metadataOf(a, 'm/3')).json()) as { metadata: object };
    expect(kept.metadata).toMatchObject({ title: 'kept', labels: { a: '1' }, rev: 2 });
    // A session that does not exist: NOT_FOUND, and nothing is created.
    const missing = await patch(a, 'm/none', { title: 'x' });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as ErrorBody).error.code).toBe('NOT_FOUND');
    expect((await metadataOf(a, 'm/none')).status).toBe(404);
    const tooBig = await patch(a, 'm/3', { title: 'x'.repeat(70_000) });
    expect(tooBig.status).toBe(413);
    await writer.close();
  });
});

describe('hub: who may read and change metadata', () => {
  secureTest('append may change it, read may read it; createdBy is the first writer', async ({ secureHub }) => {
    const { hub, mint } = secureHub;
    const writer = await mint({ append: ['acme/*'] });
    const reader = await mint({ read: ['acme/*'] });
    const appended = await fetch(`${hub.url}/v1/sessions/acme%2Fm/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${writer}` },
      body: JSON.stringify({ events: [note(0)] }),
    });
    expect(appended.status).toBe(201);
    const refused = await patch(hub, 'acme/m', { title: 'no' }, reader);
    expect(refused.status).toBe(403);
    expect((await patch(hub, 'acme/m', { title: 'no' })).status).toBe(401);
    expect((await patch(hub, 'acme/m', { title: 'yes' }, writer)).status).toBe(200);
    expect((await metadataOf(hub, 'acme/m')).status).toBe(401);
    await vi.waitFor(async () => {
      const read = (await (await metadataOf(hub, 'acme/m', reader)).json()) as { metadata: object };
      expect(read.metadata).toMatchObject({ title: 'yes', createdBy: 'tester' });
    }, WAIT);
    const ws = await RawHubClient.connect(hub.wsUrl, { token: reader });
    const denied = await ws.request({ type: 'setMetadata', sessionId: 'acme/m', patch: { title: 'ws' } });
    expect(denied).toMatchObject({ type: 'error', code: 'FORBIDDEN' });
    await ws.close();
  });
});

describe('hub: metadata writes count against the append rate', () => {
  limited(
    'a burst of patches beyond the rate gets RATE_LIMITED, and the refused ones change nothing',
    async ({ memoryHub }) => {
      const { hub, store } = memoryHub;
      {
        const result = await store.commit({ sessionId: 'rate/1', expectedSeq: 0, events: [note(0)] });
        expect(result.status).toBe('committed');
      }
      const replies = await Promise.all(
        Array.from({ length: 5 }, (_, n) => patch(hub, 'rate/1', { labels: { [`k${n}`]: 'v' } })),
      );
      const refused = replies.filter((reply) => reply.status === 429);
      expect(refused.length).toBeGreaterThan(0);
      for (const reply of refused) expect(((await reply.json()) as ErrorBody).error.code).toBe('RATE_LIMITED');
      const accepted = replies.length - refused.length;
      expect((await store.metadata.get('rate/1'))?.rev).toBe(accepted);
    },
  );
});
