import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { HubClient } from '../../client/index.ts';
import type { HubClientError, HubClientState } from '../../client/index.ts';
import { encodeMsgpackValue } from '../../shared/codec.ts';
import { MemoryStore } from '../../server/index.ts';
import { startHub, type TestHub } from '../helpers/hub.ts';
import { untilSeq } from './support.ts';
import { WsRelay } from './ws-relay.ts';

describe('server messages the SDK does not know', () => {
  let hub: TestHub;
  let relay: WsRelay;

  beforeAll(async () => {
    hub = await startHub({ store: new MemoryStore() });
    relay = await WsRelay.start(hub.wsUrl);
  });
  afterAll(async () => {
    await relay.close();
    await hub.close();
  });

  function connect(): { client: HubClient; states: HubClientState[]; errors: HubClientError[] } {
    const client = new HubClient({ url: relay.wsUrl });
    const states: HubClientState[] = [];
    const errors: HubClientError[] = [];
    client.on('state', (next) => states.push(next));
    client.on('error', (error) => errors.push(error));
    return { client, states, errors };
  }

  it('an unknown message type (binary or text) is ignored: the connection stays up', async () => {
    const { client, states, errors } = connect();
    try {
      const subscription = client.subscribe('unknown/1');
      await subscription.whenLive();
      relay.inject(encodeMsgpackValue({ type: 'notice', sessionId: 'unknown/1', text: 'a newer hub says hi' }));
      relay.inject(JSON.stringify({ type: 'stats', id: 1, load: 0.5 }));
      await client.append('unknown/1', { type: 'test/n', data: { n: 0 } });
      await untilSeq(subscription, 0);
      expect(states).toEqual(['connected']);
      expect(errors).toEqual([]);
      expect(subscription.events.map((event) => event.seq)).toEqual([0]);
    } finally {
      client.close();
    }
  });

  it('a malformed known message is still a protocol error that drops the connection', async () => {
    const { client, states, errors } = connect();
    try {
      await vi.waitFor(() => expect(client.state).toBe('connected'), { timeout: 20_000 });
      relay.inject(encodeMsgpackValue({ type: 'events', sessionId: 'unknown/2' }));
      await vi.waitFor(() => expect(errors.map((error) => error.code)).toContain('PROTOCOL'), { timeout: 20_000 });
      await vi.waitFor(() => expect(states).toContain('disconnected'), { timeout: 20_000 });
    } finally {
      client.close();
    }
  });
});
