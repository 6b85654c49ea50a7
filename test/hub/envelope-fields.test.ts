import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LogValidator } from '../../shared/log-validator.ts';
import { useMemoryHub } from '../helpers/hub.ts';
import { RawHubClient } from '../helpers/raw-hub-client.ts';

const user = { type: 'user/message', data: { role: 'user', content: 'hi' } };

/**
 * A draft carries `type`, `data`, `surfaceOp` and `sourceEventSeqs`, nothing else: `seq` and `time` are the hub's
 * to assign, and any other field is a mistake the writer must hear of (never dropped silently).
 */
describe('hub: envelope fields outside the contract are refused, over both transports', () => {
  const fixture = useMemoryHub();
  let socket: RawHubClient;
  beforeAll(async () => {
    socket = await RawHubClient.connect(fixture.hub.wsUrl);
  });
  afterAll(() => socket.close());

  const postText = async (sessionId: string, body: string) => {
    const response = await fetch(`${fixture.hub.url}/v1/sessions/${sessionId}/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    return { status: response.status, body: (await response.json()) as { error?: Record<string, unknown> } };
  };

  it('refuses seq, time and an unknown field with INVALID_EVENT naming it (HTTP and WebSocket)', async () => {
    for (const [field, value] of [
      ['seq', 0],
      ['time', 1],
      ['foo', 'bar'],
    ] as const) {
      const draft = { ...user, [field]: value };
      const http = await postText('env-http', JSON.stringify({ events: [draft] }));
      expect(http, field).toMatchObject({
        status: 400,
        body: { error: { code: 'INVALID_EVENT', details: { path: field, seq: 0 } } },
      });
      const ws = await socket.request({ type: 'append', sessionId: 'env-ws', events: [draft as typeof user] });
      expect(ws, field).toMatchObject({ type: 'error', code: 'INVALID_EVENT', details: { path: field, seq: 0 } });
    }
    // `__proto__` as a field is a field like any other.
    const proto = await postText(
      'env-http',
      `{"events":[{"type":"user/message","data":{"role":"user","content":"x"},"__proto__":{"a":1}}]}`,
    );
    expect(proto).toMatchObject({
      status: 400,
      body: { error: { code: 'INVALID_EVENT', details: { path: '__proto__' } } },
    });
    expect(await fixture.store.read('env-http', 0, 10)).toEqual([]);
    expect(await fixture.store.read('env-ws', 0, 10)).toEqual([]);
  });

  it('refuses -0 in envelope numbers as in data', async () => {
    expect((await postText('zero', JSON.stringify({ events: [user, user] }))).status).toBe(201);
    const replace = (startSeq: string) =>
      `{"events":[{"type":"user/message","data":{"role":"user","content":"x"},"surfaceOp":{"op":"replace","startSeq":${startSeq},"endSeq":0},"sourceEventSeqs":[0]}]}`;
    expect((await postText('zero', replace('-0'))).status).toBe(400);
    expect((await postText('zero', `{"events":[${JSON.stringify(user)}],"expectedSeq":-0}`)).status).toBe(400);
    const data = await postText(
      'zero',
      `{"events":[{"type":"user/message","data":{"role":"user","content":"x","n":-0}}]}`,
    );
    expect(data.body.error).toMatchObject({ code: 'INVALID_JSON' });
    expect(await fixture.store.read('zero', 0, 10)).toHaveLength(2);
    // The same rule holds for stored events: a time of -0 is not a valid commit time.
    const stored = { seq: 0, type: 'user/message', time: -0, data: { role: 'user', content: 'x' } };
    expect(() => new LogValidator().checkStored([stored], false)).toThrow(/time/);
  });
});
