import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HubClient, HubClientError } from '../../client/index.ts';
import { httpBaseOf } from '../../client/http-base.ts';
import { MemoryStore } from '../../server/index.ts';
import { startHub, type TestHub } from '../helpers/hub.ts';

const tick = (index: number) => ({ type: 'test/tick', data: { index } });

describe('HubClient.readEvents: a range of a session over the HTTP API', () => {
  let store: MemoryStore;
  let hub: TestHub;
  let client: HubClient;

  beforeAll(async () => {
    store = new MemoryStore();
    // Pages of at most 100 events: a range of 1,200 takes several requests.
    hub = await startHub({ store, lifecycle: 'off', limits: { catchUpPageSize: 100 } });
    client = new HubClient({ url: hub.wsUrl });
    await client.append(
      'r',
      Array.from({ length: 1000 }, (_, index) => tick(index)),
    );
    await client.append(
      'r',
      Array.from({ length: 200 }, (_, index) => tick(1000 + index)),
    );
  });
  afterAll(async () => {
    client.close();
    await hub.close();
    await store.close();
  });

  it('reads the seqs asked for, page by page, with the epoch', async () => {
    const log = await store.read('r', 0, 2000);
    const whole = await client.readEvents('r', 0, 1199);
    expect(whole.events).toEqual(log);
    expect(whole.epoch).toBe((await store.head('r')).epoch);
    expect((await client.readEvents('r', 640, 655)).events).toEqual(log.slice(640, 656));
    expect((await client.readEvents('r', 7, 6)).events).toEqual([]);
  });

  it('fails typed on a range past the log, another epoch, a bad range', async () => {
    await expect(client.readEvents('r', 1190, 1300)).rejects.toMatchObject({ code: 'SEQ_OUT_OF_RANGE' });
    await expect(client.readEvents('r', 0, 5, { epoch: 'another' })).rejects.toMatchObject({
      code: 'SEQ_OUT_OF_RANGE',
    });
    const bad = client.readEvents('r', 5, 2);
    await expect(bad).rejects.toBeInstanceOf(HubClientError);
    await expect(bad).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });

  it('derives the HTTP base from the WebSocket endpoint, keeping a path prefix', () => {
    expect(httpBaseOf('ws://127.0.0.1:8080/v1/ws')).toBe('http://127.0.0.1:8080');
    expect(httpBaseOf('wss://hub.example.com/chat/v1/ws')).toBe('https://hub.example.com/chat');
  });
});
