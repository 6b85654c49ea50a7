import { describe, expect } from 'vitest';
import { test } from '../helpers/fixtures.ts';
import type { TestHub } from '../helpers/hub.ts';

const it = test.extend('keyPrefix', { scope: 'file' }, 'list:');
const base = 1_700_000_000_000;

interface Row {
  id: string;
  tier: string;
  headSeq: number;
  createdAt?: number;
  lastActivity?: number;
  bytes: number;
  title?: string;
  labels: Record<string, string>;
}
interface Page {
  sessions: Row[];
  next?: string;
}

async function append(hub: TestHub, sessionId: string, time: number, count = 1): Promise<void> {
  const events = Array.from({ length: count }, (_, n) => ({ type: 'test/note', data: { n } }));
  const response = await fetch(`${hub.url}/v1/sessions/${encodeURIComponent(sessionId)}/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ events, time }),
  });
  expect(response.status).toBe(201);
}

async function label(hub: TestHub, sessionId: string, body: object): Promise<void> {
  const response = await fetch(`${hub.url}/v1/sessions/${encodeURIComponent(sessionId)}`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
}

async function list(hub: TestHub, query = ''): Promise<Response> {
  return fetch(`${hub.url}/v1/sessions${query}`);
}

async function page(hub: TestHub, query = ''): Promise<Page> {
  const response = await list(hub, query);
  expect(response.status).toBe(200);
  return (await response.json()) as Page;
}

describe('GET /v1/sessions: paged rows, most recently active first', () => {
  let hub: TestHub;

  it.beforeAll(async ({ redisHub }) => {
    hub = redisHub;
    // Activity order (newest first): acme/c, globex/a, acme/a, acme/b (written at base+1 s, +4 s later), empty never.
    await append(hub, 'acme/a', base + 1000, 3);
    await append(hub, 'acme/b', base + 2000);
    await append(hub, 'globex/a', base + 5000, 2);
    await append(hub, 'acme/a', base + 4000);
    await append(hub, 'acme/c', base + 6000);
    await label(hub, 'acme/a', { title: 'First', labels: { team: 'red', env: 'prod' } });
    await label(hub, 'acme/b', { labels: { team: 'blue' } });
    await label(hub, 'globex/a', { labels: { team: 'red' } });
  });

  it('lists every session with its head, creation, activity, size, title and labels', async () => {
    const { sessions, next } = await page(hub);
    expect(next).toBeUndefined();
    expect(sessions.map((row) => row.id)).toEqual(['acme/c', 'globex/a', 'acme/a', 'acme/b']);
    const first = sessions.find((row) => row.id === 'acme/a')!;
    expect(first).toMatchObject({
      tier: 'hot',
      headSeq: 3,
      createdAt: base + 1000,
      lastActivity: base + 4000,
      title: 'First',
      labels: { env: 'prod', team: 'red' },
    });
    expect(first.bytes).toBeGreaterThan(0);
    expect(sessions.find((row) => row.id === 'acme/c')).toMatchObject({ headSeq: 0, labels: {} });
  });

  it('pages with limit and next: every session once, in order', async () => {
    const seen: string[] = [];
    let query = '?limit=1';
    for (let pages = 0; pages < 10; pages++) {
      const { sessions, next } = await page(hub, query);
      expect(sessions.length).toBeLessThanOrEqual(1);
      seen.push(...sessions.map((row) => row.id));
      if (next === undefined) break;
      query = `?limit=1&after=${encodeURIComponent(next)}`;
    }
    expect(seen).toEqual(['acme/c', 'globex/a', 'acme/a', 'acme/b']);
    const two = await page(hub, '?limit=2');
    expect(two.sessions.map((row) => row.id)).toEqual(['acme/c', 'globex/a']);
    expect(two.next).toEqual(expect.any(String));
  });

  it('filters by prefix and by labels (key=value, or key present; all must match)', async () => {
    const ids = async (query: string): Promise<string[]> => (await page(hub, query)).sessions.map((row) => row.id);
    expect(await ids('?prefix=acme/')).toEqual(['acme/c', 'acme/a', 'acme/b']);
    expect(await ids('?label=team=red')).toEqual(['globex/a', 'acme/a']);
    expect(await ids('?label=team')).toEqual(['globex/a', 'acme/a', 'acme/b']);
    expect(await ids('?label=team=red&label=env=prod')).toEqual(['acme/a']);
    expect(await ids('?prefix=acme/&label=team=red')).toEqual(['acme/a']);
    expect(await ids('?label=team=green')).toEqual([]);
  });

  it('follows activity: a new append moves a session to the top', async () => {
    await append(hub, 'acme/b', base + 9000);
    expect((await page(hub, '?limit=1')).sessions[0]).toMatchObject({ id: 'acme/b', lastActivity: base + 9000 });
  });

  it('refuses bad queries with BAD_REQUEST and lists nothing', async () => {
    for (const query of [
      '?limit=0',
      '?limit=1001',
      '?limit=abc',
      '?after=not-a-cursor',
      `?after=${Buffer.from('{"a":1}').toString('base64url')}`,
      '?label=bad key',
      '?label==v',
      `?${Array.from({ length: 9 }, (_, n) => `label=k${n}`).join('&')}`,
      '?prefix=acme',
    ]) {
      const response = await list(hub, query);
      expect(response.status, query).toBe(400);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('BAD_REQUEST');
    }
  });
});
