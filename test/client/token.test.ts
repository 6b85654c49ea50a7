import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HubClient } from '../../client/index.ts';
import type { HubClientError } from '../../client/index.ts';
import { HubError, MemoryStore } from '../../server/index.ts';
import type { HubAuth } from '../../server/index.ts';
import { startHub, type TestHub } from '../helpers/hub.ts';

/** Accepts tokens named `good-*`; everything else is UNAUTHORIZED. */
const auth: HubAuth = {
  authenticate: (token) => {
    if (token === undefined || !token.startsWith('good-')) throw new HubError('UNAUTHORIZED', 'bad token');
    return { subject: token };
  },
  authorize: () => true,
};

describe('tokens', () => {
  let store: MemoryStore;
  let hub: TestHub;
  const clients: HubClient[] = [];

  beforeAll(async () => {
    store = new MemoryStore();
    hub = await startHub({ store, auth });
  });
  afterAll(async () => {
    for (const client of clients) client.close();
    await hub.close();
    await store.close();
  });

  it('calls the token function on connect and on refresh; the hub accepts the new token over the socket', async () => {
    const issued: string[] = [];
    const client = new HubClient({
      url: hub.wsUrl,
      token: async () => {
        issued.push(`good-${issued.length}`);
        return issued.at(-1)!;
      },
    });
    clients.push(client);
    await client.append('token/1', { type: 'x/y', data: 1 });
    expect(issued).toEqual(['good-0']);
    await client.refreshToken();
    expect(issued).toEqual(['good-0', 'good-1']);
    await client.append('token/1', { type: 'x/y', data: 2 });
  });

  it('a refused refresh rejects with the hub code; a fixed token refused at hello closes the client', async () => {
    let token = 'good-a';
    const client = new HubClient({ url: hub.wsUrl, token: () => token });
    clients.push(client);
    await client.append('token/2', { type: 'x/y', data: 1 });
    token = 'bad';
    await expect(client.refreshToken()).rejects.toMatchObject({ code: 'UNAUTHORIZED' });

    const refused = new HubClient({ url: hub.wsUrl, token: 'bad' });
    clients.push(refused);
    const errors: HubClientError[] = [];
    refused.on('error', (error) => errors.push(error));
    await new Promise<void>((resolve) => refused.on('state', (next) => next === 'closed' && resolve()));
    expect(errors.map((error) => error.code)).toEqual(['UNAUTHORIZED']);
  });

  it('with a token function, a refused hello is retried (with a fresh token) instead of closing', async () => {
    const tokens = ['bad-1', 'bad-2', 'good-3'];
    const client = new HubClient({
      url: hub.wsUrl,
      token: () => tokens.shift() ?? 'good-later',
      reconnect: { initialDelayMs: 10, maxDelayMs: 50 },
    });
    clients.push(client);
    const errors: string[] = [];
    client.on('error', (error) => errors.push(error.code));
    await client.append('token/3', { type: 'x/y', data: 1 });
    expect(client.state).toBe('connected');
    expect(errors).toEqual(['UNAUTHORIZED', 'UNAUTHORIZED']);
    expect(tokens).toEqual([]);
  });

  it('stays closed when close() comes while the token function is still answering, and it then fails', async () => {
    let failToken: (error: Error) => void = () => undefined;
    const asked = new Promise<void>((resolve) => {
      const client = new HubClient({
        url: hub.wsUrl,
        reconnect: { initialDelayMs: 5, maxDelayMs: 5 },
        token: () =>
          new Promise<string>((_, reject) => {
            failToken = reject;
            resolve();
          }),
      });
      clients.push(client);
    });
    await asked;
    const client = clients.at(-1)!;
    const states: string[] = [];
    client.on('state', (next) => states.push(next));
    client.close();
    failToken(new Error('token server down'));
    // Had the failure scheduled a reconnect, the client would be `disconnected` by now.
    await new Promise<void>((resolve) => setImmediate(resolve));
    await expect(client.append('token/closed', { type: 'x/y', data: 1 })).rejects.toMatchObject({ code: 'CLOSED' });
    expect(client.state).toBe('closed');
    expect(states).toEqual(['closed']); // and no `disconnected` / `connecting` after it
    expect((await store.head('token/closed')).headSeq).toBe(-1);
  });

  it('gives up a token function that never answers after connectTimeoutMs, and retries with a new call', async () => {
    let calls = 0;
    const client = new HubClient({
      url: hub.wsUrl,
      connectTimeoutMs: 100,
      reconnect: { initialDelayMs: 5, maxDelayMs: 5 },
      token: () => (++calls === 1 ? new Promise<string>(() => undefined) : 'good-after-hang'),
    });
    clients.push(client);
    const errors: HubClientError[] = [];
    client.on('error', (error) => errors.push(error));
    await client.append('token/hang', { type: 'x/y', data: 1 });
    expect(calls).toBe(2);
    expect(errors.map((error) => error.code)).toEqual(['TOKEN_FAILED']);
    expect(errors[0]!.message).toContain('no token within 100 ms');
  });
});
