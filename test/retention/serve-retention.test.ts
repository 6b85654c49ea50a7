// `session-hub serve` with retention flags, as an operator runs it: the rules reach the hub, its sweeper expires an
// idle session (real time, rules of a second), keeps the one a `never` rule covers, and counts it in /metrics.
import { expect, vi } from 'vitest';
import { test } from '../helpers/fixtures.ts';
import { serve } from '../security/serve-process.ts';

async function append(url: string, sessionId: string): Promise<number> {
  const response = await fetch(`${url}/v1/sessions/${encodeURIComponent(sessionId)}/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ events: [{ type: 'user/message', data: { role: 'user', content: 'hi' } }] }),
  });
  await response.arrayBuffer();
  return response.status;
}

test('serve --retain-for / --retain / --retention-interval expire idle sessions by their rule', async ({ redis }) => {
  const node = await serve([
    '--redis',
    redis.url,
    '--key-prefix',
    'serve-retention:',
    '--retain-for',
    '1s',
    '--retain',
    'keep/=never',
    '--retention-interval',
    '200ms',
    '--expired-ttl',
    '1h',
  ]);
  try {
    expect(await append(node.url, 'gone/1')).toBe(201);
    expect(await append(node.url, 'keep/1')).toBe(201);
    await vi.waitFor(async () => expect((await fetch(`${node.url}/v1/sessions/gone%2F1`)).status).toBe(410), {
      timeout: 15_000,
      interval: 100,
    });
    const kept = await fetch(`${node.url}/v1/sessions/keep%2F1`);
    expect(await kept.json()).toMatchObject({ headSeq: 0 });
    const metrics = await (await fetch(`${node.url}/metrics`)).text();
    expect(metrics).toMatch(/^session_hub_retention_expired_sessions_total 1$/m);
    expect(metrics).toMatch(/^session_hub_retention_last_sweep_timestamp_seconds [1-9]/m);
  } finally {
    await node.stop();
  }
});
