// An expired session, end to end on two hub nodes sharing a real Redis, with the sweeper's clock driven by the test:
// live subscribers on every node are told SESSION_EXPIRED (never reset to an empty log), every read of it answers
// SESSION_EXPIRED (WebSocket subscribe, HTTP 410, the CLI in one line), and an append starts a new log.
import { afterEach, describe, expect, vi } from 'vitest';
import { HubClient, type HubClientError, type Subscription } from '../../client/index.ts';
import { test } from '../helpers/fixtures.ts';
import { runCliHere } from '../cli/run-cli.ts';
import type { TestHub } from '../helpers/hub.ts';

const DAY = 24 * 3600 * 1000;
const WAIT = { timeout: 10_000, interval: 20 };
/** How far ahead of the real clock the sweepers' clock runs: 0 keeps everything, 2 days expires every session. */
let shift = 0;

const onTwoNodes = test
  .extend(
    'hubConfig',
    { scope: 'file' },
    {
      retention: { retainForMs: DAY, sweepIntervalMs: 100, clock: () => Date.now() + shift },
    },
  )
  .extend('hubCount', { scope: 'file' }, 2);

interface Watched {
  readonly subscription: Subscription;
  readonly errors: HubClientError[];
  resets: number;
  closed: boolean;
  live: boolean;
}

const clients: HubClient[] = [];
afterEach(() => {
  for (const client of clients.splice(0)) client.close();
});

function watch(node: TestHub, sessionId: string): Watched {
  const client = new HubClient({ url: node.wsUrl });
  clients.push(client);
  const subscription = client.subscribe(sessionId);
  const watched: Watched = { subscription, errors: [], resets: 0, closed: false, live: false };
  subscription.on('error', (error) => watched.errors.push(error));
  subscription.on('reset', () => watched.resets++);
  subscription.on('closed', () => (watched.closed = true));
  subscription.on('live', () => (watched.live = true));
  return watched;
}

async function append(node: TestHub, sessionId: string, content: string): Promise<Response> {
  return fetch(`${node.url}/v1/sessions/${encodeURIComponent(sessionId)}/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ events: [{ type: 'user/message', data: { role: 'user', content } }] }),
  });
}

async function errorOf(response: Response): Promise<{ status: number; code: unknown; expiredAt: unknown }> {
  const body = (await response.json()) as { error?: { code?: unknown; details?: { expiredAt?: unknown } } };
  return { status: response.status, code: body.error?.code, expiredAt: body.error?.details?.expiredAt };
}

describe('an expired session', () => {
  onTwoNodes(
    'its live subscribers on every node get SESSION_EXPIRED and end, without a reset',
    async ({ redisHubs }) => {
      const [a, b] = redisHubs.cluster.nodes as [TestHub, TestHub];
      expect((await append(a, 'live/1', 'one')).status).toBe(201);
      expect((await append(a, 'live/1', 'two')).status).toBe(201);
      const watchers = [watch(a, 'live/1'), watch(b, 'live/1')];
      await vi.waitFor(() => expect(watchers.every((watched) => watched.live)).toBe(true), WAIT);
      shift = 2 * DAY;
      for (const watched of watchers) {
        await vi.waitFor(() => expect(watched.closed).toBe(true), WAIT);
        expect(watched.errors.map((error) => error.code)).toEqual(['SESSION_EXPIRED']);
        expect(watched.errors[0]!.message).toMatch(/session live\/1 expired at .* under the retention rules/);
        expect(watched.resets).toBe(0);
      }
    },
  );

  onTwoNodes('every read answers SESSION_EXPIRED: subscribe, HTTP (410), export and tail', async ({ redisHubs }) => {
    const [a, b] = redisHubs.cluster.nodes as [TestHub, TestHub];
    shift = 0;
    expect((await append(a, 'read/1', 'one')).status).toBe(201);
    shift = 2 * DAY;
    await vi.waitFor(async () => expect((await fetch(`${b.url}/v1/sessions/read%2F1`)).status).toBe(410), WAIT);
    for (const path of ['', '/events', '/events?from=0', '/events?from=7', '/snapshot']) {
      const reply = await errorOf(await fetch(`${b.url}/v1/sessions/read%2F1${path}`));
      expect({ path, ...reply }).toEqual({ path, status: 410, code: 'SESSION_EXPIRED', expiredAt: expect.any(Number) });
    }
    // A session never written still reads as empty.
    const never = await fetch(`${b.url}/v1/sessions/never%2F1`);
    expect(never.status).toBe(200);
    expect(await never.json()).toMatchObject({ epoch: '', headSeq: -1 });
    for (const node of [a, b]) {
      const watched = watch(node, 'read/1');
      await vi.waitFor(() => expect(watched.closed).toBe(true), WAIT);
      expect(watched.errors.map((error) => error.code)).toEqual(['SESSION_EXPIRED']);
    }
    const exported = await runCliHere(['export', 'read/1', '--url', a.url]);
    expect(exported.code).toBe(1);
    expect(exported.stdout).toBe('');
    expect(exported.stderr).toMatch(
      /^session-hub: SESSION_EXPIRED: session read\/1 expired at \S+ under the retention/,
    );
    expect(exported.stderr.trim().split('\n')).toHaveLength(1);
    const tailed = await runCliHere(['tail', 'read/1', '--url', b.url]);
    expect(tailed.code).toBe(1);
    expect(tailed.stderr).toMatch(/^session-hub: session read\/1 expired at \S+ under the retention rules/);
    expect(tailed.stderr.trim().split('\n')).toHaveLength(1);
  });

  onTwoNodes('an append to an expired id starts a new log at seq 0 under a new epoch', async ({ redisHubs }) => {
    const [a, b] = redisHubs.cluster.nodes as [TestHub, TestHub];
    shift = 0;
    const first = (await (await append(a, 'again/1', 'old')).json()) as { epoch: string };
    for (const content of ['old 2', 'old 3']) expect((await append(a, 'again/1', content)).status).toBe(201);
    shift = 2 * DAY;
    await vi.waitFor(async () => expect((await fetch(`${a.url}/v1/sessions/again%2F1`)).status).toBe(410), WAIT);
    shift = 0;
    // Node a validated the old log (3 events) and still has it cached: its append starts the new log all the same.
    const reply = await append(a, 'again/1', 'new');
    expect(reply.status).toBe(201);
    const second = (await reply.json()) as { epoch: string; firstSeq: number };
    expect(second.firstSeq).toBe(0);
    expect(second.epoch).not.toBe(first.epoch);
    const third = (await (await append(b, 'again/1', 'next')).json()) as { epoch: string; firstSeq: number };
    expect(third).toMatchObject({ epoch: second.epoch, firstSeq: 1 });
    const head = await (await fetch(`${a.url}/v1/sessions/again%2F1`)).json();
    expect(head).toMatchObject({ epoch: second.epoch, headSeq: 1 });
    const watched = watch(a, 'again/1');
    await vi.waitFor(() => expect(watched.live).toBe(true), WAIT);
    expect(watched.errors).toEqual([]);
  });
});

describe('an expired session on the memory engine', () => {
  onTwoNodes('its subscriber gets SESSION_EXPIRED, HTTP reads 410', async ({ memoryHub }) => {
    const node = memoryHub.hub;
    shift = 0;
    expect((await append(node, 'mem/1', 'one')).status).toBe(201);
    const watched = watch(node, 'mem/1');
    await vi.waitFor(() => expect(watched.live).toBe(true), WAIT);
    shift = 2 * DAY;
    await vi.waitFor(() => expect(watched.closed).toBe(true), WAIT);
    expect(watched.errors.map((error) => error.code)).toEqual(['SESSION_EXPIRED']);
    expect(watched.resets).toBe(0);
    const reply = await errorOf(await fetch(`${node.url}/v1/sessions/mem%2F1/events`));
    expect(reply).toEqual({ status: 410, code: 'SESSION_EXPIRED', expiredAt: expect.any(Number) });
    shift = 0;
  });
});
