import { WebSocket } from 'ws';
import { describe, expect } from 'vitest';
import { CloseCode } from '../../shared/protocol.ts';
import { RawHubClient } from '../helpers/raw-hub-client.ts';
import { MATRIX, matrixTitle, TARGET, type MatrixCase } from './matrix.ts';
import { secureTest as it, type SecureHub } from './secure-hub.ts';

const note = (n: number) => ({ type: 'test/note', data: { n } });

describe('security matrix over the socket', () => {
  let secure: SecureHub;
  let refused = 0;

  it.beforeAll(async ({ secureHub }) => {
    secure = secureHub;
    const writer = await RawHubClient.connect(secure.hub.wsUrl, { token: await secure.mint({ append: ['acme/*'] }) });
    expect(await writer.request({ type: 'append', sessionId: TARGET, events: [note(0)] })).toMatchObject({
      type: 'ack',
    });
    await writer.close();
  });

  async function expectNothingChanged(): Promise<void> {
    expect((await secure.store.head(TARGET)).headSeq).toBe(0);
  }

  it.each(MATRIX.map((entry) => [matrixTitle(entry), entry] as const))('%s', async (_title, entry: MatrixCase) => {
    const token = await entry.token(secure);
    const client = await RawHubClient.connect(secure.hub.wsUrl, { hello: false });
    const hello = await client.request({ type: 'hello', versions: [1], ...(token === undefined ? {} : { token }) });
    if (entry.code === 'FORBIDDEN') {
      expect(hello.type).toBe('welcome');
      const request =
        entry.action === 'read'
          ? { type: 'subscribe', sessionId: TARGET }
          : { type: 'append', sessionId: TARGET, events: [note(666)] };
      expect(await client.request(request)).toMatchObject({ type: 'error', code: 'FORBIDDEN', sessionId: TARGET });
      expect(await client.request({ type: 'ping' })).toMatchObject({ type: 'pong' }); // the connection lives on
      await client.close();
    } else {
      expect(hello).toMatchObject({ type: 'error', code: entry.code });
      expect((await client.closed).code).toBe(CloseCode.POLICY_VIOLATION);
    }
    const leaked = client.messages.filter((message) => ['events', 'subscribed', 'ack', 'live'].includes(message.type));
    expect(leaked).toEqual([]);
    await expectNothingChanged();
    refused++;
  });

  it('accepts the right token from hello, the Authorization header and ?token= (positive control)', async () => {
    const token = await secure.mint({ read: ['acme/*'] });
    const viaHello = await RawHubClient.connect(secure.hub.wsUrl, { token });
    const viaQuery = await RawHubClient.connect(`${secure.hub.wsUrl}?token=${encodeURIComponent(token)}`);
    for (const client of [viaHello, viaQuery]) {
      expect(await client.request({ type: 'subscribe', sessionId: TARGET })).toMatchObject({ type: 'subscribed' });
      await client.waitFor((message) => message.type === 'live');
      expect(client.seqs(TARGET)).toEqual([0]);
      await client.close();
    }
    const viaHeader = await helloWithHeader(`Bearer ${token}`);
    expect(viaHeader.reply).toMatchObject({ type: 'welcome' });
    viaHeader.ws.close();
  });

  it('refuses a bad token in the Authorization header or ?token= just as in hello', async () => {
    const expired = await secure.mint({ read: ['*'] }, { now: Date.now() - 7_200_000, expiresIn: 60 });
    const viaHeader = await helloWithHeader(`Bearer ${expired}`);
    expect(viaHeader.reply).toMatchObject({ type: 'error', code: 'TOKEN_EXPIRED' });
    expect(await viaHeader.closeCode).toBe(CloseCode.POLICY_VIOLATION);
    const viaQuery = await RawHubClient.connect(`${secure.hub.wsUrl}?token=forged.token.here`, { hello: false });
    expect(await viaQuery.request({ type: 'hello', versions: [1] })).toMatchObject({ code: 'UNAUTHORIZED' });
    expect((await viaQuery.closed).code).toBe(CloseCode.POLICY_VIOLATION);
  });

  it('refuses an Authorization header that is not "Bearer <token>" with bad-auth-scheme, not as "no token"', async () => {
    const basic = await helloWithHeader('Basic YWxpY2U6c2VjcmV0');
    expect(basic.reply).toMatchObject({ type: 'error', code: 'UNAUTHORIZED', details: { reason: 'bad-auth-scheme' } });
    expect(await basic.closeCode).toBe(CloseCode.POLICY_VIOLATION);
    // Also when hello carries a valid token: credentials that were sent are never silently dropped.
    const token = await secure.mint({ read: ['*'] });
    const both = await helloWithHeader('Basic YWxpY2U6c2VjcmV0', token);
    expect(both.reply).toMatchObject({ type: 'error', code: 'UNAUTHORIZED', details: { reason: 'bad-auth-scheme' } });
  });

  it('refused every case of the matrix', () => {
    console.log(`security matrix (socket): ${refused} of ${MATRIX.length} hostile requests refused with their code`);
    expect(MATRIX.length).toBe(36);
    expect(refused).toBe(MATRIX.length);
  });

  /** A raw `ws` hello with an Authorization header on the upgrade request (JSON frames). */
  async function helloWithHeader(authorization: string, token?: string) {
    const ws = new WebSocket(secure.hub.wsUrl, { headers: { authorization } });
    const closeCode = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const reply = new Promise<unknown>((resolve) => ws.once('message', (data) => resolve(JSON.parse(String(data)))));
    ws.send(JSON.stringify({ type: 'hello', id: 1, versions: [1], ...(token === undefined ? {} : { token }) }));
    return { ws, reply: await reply, closeCode };
  }
});
