import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloseCode } from '../../shared/protocol.ts';
import { encodeFrame } from '../../shared/codec.ts';
import { MemoryStore } from '../../server/store/memory/memory-store.ts';
import { startHub, type TestHub } from '../helpers/hub.ts';
import { RawHubClient } from '../helpers/raw-hub-client.ts';

describe('hub: hello and version negotiation', () => {
  let hub: TestHub;
  const store = new MemoryStore();
  beforeAll(async () => {
    hub = await startHub({
      store,
      protocolVersions: [1, 2],
      limits: { maxFrameBytes: 65_536, maxEventsPerAppend: 50, maxEventBytes: 16_384 },
    });
  });
  afterAll(async () => {
    await hub.close();
    await store.close();
  });

  it('picks the highest version both sides speak, names the node and announces its append limits', async () => {
    const client = await RawHubClient.connect(hub.wsUrl, { hello: false });
    const welcome = await client.request({ type: 'hello', versions: [3, 1, 2] });
    expect(welcome).toEqual({
      type: 'welcome',
      id: 1,
      version: 2,
      node: hub.hub.nodeName,
      limits: { maxFrameBytes: 65_536, maxEventsPerAppend: 50, maxEventBytes: 16_384 },
    });
    expect(await client.request({ type: 'ping' })).toEqual({ type: 'pong', id: 2 });
    await client.close();
  });

  it('refuses a hello without a shared version: UNSUPPORTED_VERSION, then close 1002', async () => {
    const client = await RawHubClient.connect(hub.wsUrl, { hello: false });
    const reply = await client.request({ type: 'hello', versions: [7, 8] });
    expect(reply).toMatchObject({ type: 'error', id: 1, code: 'UNSUPPORTED_VERSION', details: { supported: '1,2' } });
    expect((await client.closed).code).toBe(CloseCode.PROTOCOL_ERROR);
  });

  it('requires hello as the first message', async () => {
    const client = await RawHubClient.connect(hub.wsUrl, { hello: false });
    const reply = await client.request({ type: 'ping' });
    expect(reply).toMatchObject({ type: 'error', id: 1, code: 'BAD_REQUEST' });
    expect(reply.type === 'error' && reply.message).toMatch(/first message must be hello/);
    expect((await client.closed).code).toBe(CloseCode.PROTOCOL_ERROR);
  });

  it('closes a connection that sends an undecodable first frame', async () => {
    const client = await RawHubClient.connect(hub.wsUrl, { hello: false });
    client.sendRaw(new Uint8Array([0xc1, 0xff, 0x00]));
    const closed = await client.closed;
    expect(closed.code).toBe(CloseCode.PROTOCOL_ERROR);
    expect(client.ofType('error')[0]?.code).toMatch(/PARSE_ERROR|BAD_REQUEST/);
  });

  it('closes a connection that never says hello', async () => {
    const impatient = await startHub({ store, limits: { helloTimeoutMs: 200 } });
    const client = await RawHubClient.connect(impatient.wsUrl, { hello: false });
    const closed = await client.closed;
    expect(closed.code).toBe(CloseCode.PROTOCOL_ERROR);
    expect(closed.reason).toMatch(/no hello/);
    await impatient.close();
  });

  it('rejects a second hello but keeps the connection', async () => {
    const client = await RawHubClient.connect(hub.wsUrl);
    expect(await client.request({ type: 'hello', versions: [1] })).toMatchObject({ code: 'BAD_REQUEST' });
    expect(await client.request({ type: 'ping' })).toMatchObject({ type: 'pong' });
    await client.close();
  });

  it('serves requests sent right behind hello without waiting for welcome', async () => {
    const client = await RawHubClient.connect(hub.wsUrl, { hello: false });
    client.ws.send(encodeFrame({ type: 'hello', id: 1, versions: [1] }));
    client.ws.send(encodeFrame({ type: 'ping', id: 2 }));
    await client.waitFor((message) => message.type === 'pong');
    expect(client.messages.map((message) => message.type)).toEqual(['welcome', 'pong']);
    await client.close();
  });

  it('answers a JSON text client in JSON text', async () => {
    const client = await RawHubClient.connect(hub.wsUrl, { format: 'text' });
    const frames: boolean[] = [];
    client.ws.on('message', (_data, isBinary) => frames.push(isBinary));
    expect(await client.request({ type: 'ping' })).toEqual({ type: 'pong', id: 2 });
    expect(frames).toEqual([false]);
    await client.close();
  });

  it('refuses upgrades on other paths', async () => {
    await expect(RawHubClient.connect(hub.wsUrl.replace('/v1/ws', '/nope'))).rejects.toThrow(/404/);
  });
});
