import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerMessage } from '../../shared/protocol.ts';
import { PrincipalRateLimits } from '../../server/limits/principal-rate.ts';
import { RawHubClient } from '../helpers/raw-hub-client.ts';
import { hs256Issuer } from '../helpers/tokens.ts';
import { rawRequest, serve, type Served } from './serve-process.ts';

const user = (content: string) => ({ type: 'user/message', data: { role: 'user', content } });
const burst = 6;
const ratePerSecond = 1;

type Outcome = 'ok' | 'principal-limited' | string;

function wsOutcome(reply: ServerMessage): Outcome {
  if (reply.type === 'ack') return 'ok';
  if (reply.type === 'error' && reply.code === 'RATE_LIMITED' && reply.details?.['scope'] === 'principal') {
    return 'principal-limited';
  }
  return JSON.stringify(reply);
}

// Hole 11 of issue 11: rate limits were per connection only and HTTP appends had none, so one token over ten
// sockets appended 20,000/s. The per-principal bucket is shared by every socket and by HTTP.
describe('one token subject gets one append rate on a node, over every socket and HTTP', () => {
  const issuer = hs256Issuer();
  let hub: Served;
  beforeAll(async () => {
    hub = await serve(['--principal-append-burst', String(burst)], {
      AUTH_SECRET: issuer.secret!,
      SESSION_HUB_PRINCIPAL_APPENDS_PER_SECOND: String(ratePerSecond),
    });
  });
  afterAll(() => hub?.stop());

  it('sockets and HTTP requests of one subject draw from one bucket; another subject is not slowed', async () => {
    const grants = { sh: { append: ['rate/*'], read: ['rate/*'] } };
    const flooder = await issuer.sign({ sub: 'flooder', ...grants });
    const bystander = await issuer.sign({ sub: 'bystander', ...grants });
    const sockets = await Promise.all([1, 2, 3].map(() => RawHubClient.connect(hub.wsUrl, { token: flooder })));
    const started = Date.now();
    const outcomes: Outcome[] = [];
    for (let round = 0; round < 4; round++) {
      for (const [index, socket] of sockets.entries()) {
        const events = [user(`ws ${round}.${index}`)];
        outcomes.push(wsOutcome(await socket.request({ type: 'append', sessionId: `rate/ws-${index}`, events })));
      }
      const reply = await rawRequest(`${hub.url}/v1/sessions/rate/http/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${flooder}`, 'content-type': 'application/json' },
        body: JSON.stringify({ events: [user(`http ${round}`)] }),
      });
      if (reply.status === 201) outcomes.push('ok');
      else if (reply.status === 429) {
        expect(reply.headers['retry-after']).toMatch(/^\d+$/);
        expect(JSON.parse(reply.body)).toMatchObject({
          error: { code: 'RATE_LIMITED', details: { scope: 'principal' } },
        });
        outcomes.push('principal-limited');
      } else outcomes.push(`${reply.status} ${reply.body}`);
    }
    const elapsedSeconds = (Date.now() - started) / 1000;
    const accepted = outcomes.filter((outcome) => outcome === 'ok').length;
    expect(outcomes.filter((outcome) => outcome !== 'ok' && outcome !== 'principal-limited')).toEqual([]);
    // 16 appends, each well under the per-connection rate: only the shared bucket can refuse them.
    expect(accepted).toBeGreaterThanOrEqual(burst);
    expect(accepted).toBeLessThanOrEqual(burst + Math.ceil(elapsedSeconds * ratePerSecond));
    expect(outcomes.length - accepted).toBeGreaterThan(0);

    const other = await RawHubClient.connect(hub.wsUrl, { token: bystander });
    const reply = await other.request({ type: 'append', sessionId: 'rate/bystander', events: [user('hi')] });
    expect(reply.type).toBe('ack');
    await Promise.all([...sockets, other].map((socket) => socket.close()));
  });
});

describe('PrincipalRateLimits', () => {
  it('keys by subject with auth and by address on an open hub, and keeps at most maxPrincipals buckets', () => {
    let now = 0;
    const bySubject = new PrincipalRateLimits({
      ratePerSecond: 1,
      burst: 1,
      byAddress: false,
      maxPrincipals: 10,
      now: () => now,
    });
    bySubject.checkAppend({ subject: 'a' }, '10.0.0.1');
    expect(() => bySubject.checkAppend({ subject: 'a' }, '10.0.0.2')).toThrow(/token subject/);
    bySubject.checkAppend({ subject: 'b' }, '10.0.0.1');
    const byAddress = new PrincipalRateLimits({
      ratePerSecond: 1,
      burst: 1,
      byAddress: true,
      maxPrincipals: 10,
      now: () => now,
    });
    byAddress.checkAppend({ subject: 'anonymous' }, '10.0.0.1');
    expect(() => byAddress.checkAppend({ subject: 'anonymous' }, '10.0.0.1')).toThrow(/this address/);
    byAddress.checkAppend({ subject: 'anonymous' }, '10.0.0.2');
    for (let index = 0; index < 1000; index++) bySubject.checkAppend({ subject: `s${index}` }, undefined);
    expect(bySubject.size).toBeLessThanOrEqual(10);
    now += 1000;
    bySubject.checkAppend({ subject: 'a' }, undefined);
  });
});
