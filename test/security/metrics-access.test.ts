import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hs256Issuer } from '../helpers/tokens.ts';
import { errorOf, rawRequest, serve, serveToExit, type Served } from './serve-process.ts';

// Hole 9 of issue 11: `/metrics` answered without a token on a `--require-auth` hub. Now the main port serves it
// to an admin token only; `--metrics-port` opens a separate token-less listener for a scraper.
describe('/metrics on a hub with auth', () => {
  const issuer = hs256Issuer();
  let hub: Served;
  let metricsUrl: string;
  beforeAll(async () => {
    hub = await serve(['--require-auth', '--metrics-port', '0'], { AUTH_SECRET: issuer.secret! });
    metricsUrl = /^metrics: (http:\/\/\S+)\/metrics/m.exec(hub.stdout())![1]!;
  });
  afterAll(() => hub?.stop());

  it('the main port refuses it without a token (401) and to a token without admin on every session (403)', async () => {
    const anonymous = await rawRequest(`${hub.url}/metrics`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).not.toMatch(/session_hub_/);
    const reader = await issuer.sign({ sub: 'reader', sh: { read: ['*'], append: ['*'] } });
    const tenantAdmin = await issuer.sign({ sub: 'tenant', sh: { admin: ['acme/*'] } });
    for (const token of [reader, tenantAdmin]) {
      const refused = await rawRequest(`${hub.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
      expect(refused.status).toBe(403);
      expect(errorOf(refused).code).toBe('FORBIDDEN');
    }
  });

  it('the main port serves it to an admin token', async () => {
    const admin = await issuer.sign({ sub: 'ops', sh: { admin: true } });
    const reply = await rawRequest(`${hub.url}/metrics`, { headers: { authorization: `Bearer ${admin}` } });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatch(/^session_hub_connections \d/m);
  });

  it('--metrics-port serves it without a token, and nothing else', async () => {
    expect(metricsUrl).not.toBe(hub.url);
    const reply = await rawRequest(`${metricsUrl}/metrics`);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatch(/^session_hub_http_requests_total\{/m);
    expect((await rawRequest(`${metricsUrl}/v1/sessions`)).status).toBe(404);
    expect((await rawRequest(`${metricsUrl}/v1/sessions/s/events`)).status).toBe(404);
    expect((await rawRequest(`${metricsUrl}/metrics`, { method: 'POST' })).status).toBe(405);
  });

  it('a metrics port that cannot be bound stops the start with one clear line', async () => {
    const port = new URL(hub.url).port;
    const run = await serveToExit(['--metrics-port', port], { AUTH_SECRET: issuer.secret! });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port}: address already in use`));
  });
});
