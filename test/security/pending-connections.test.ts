import { afterAll, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import { CloseCode } from '../../shared/protocol.ts';
import { useMemoryHub } from '../helpers/hub.ts';
import { RawHubClient } from '../helpers/raw-hub-client.ts';

/** What became of a WebSocket upgrade that never sends hello. */
type Outcome = { readonly open: WebSocket } | { readonly status: number };

/** Open a WebSocket from `localAddress` (any 127.x.y.z is loopback on Linux) and never send hello. */
function idleUpgrade(wsUrl: string, localAddress: string): Promise<Outcome> {
  const ws = new WebSocket(wsUrl, { localAddress });
  ws.on('error', () => undefined);
  return new Promise((resolve) => {
    ws.once('open', () => resolve({ open: ws }));
    ws.once('unexpected-response', (_, response) => resolve({ status: response.statusCode ?? 0 }));
    ws.once('close', () => resolve({ status: 0 }));
  });
}

/**
 * Issue 11, hole 3: upgrades that never send hello filled `maxConnections` for the hello timeout, locking every
 * other client out. Now a connection counts against `maxConnections` only after hello; before it, a small
 * node-wide budget (the oldest idle one makes room for a new one) and a per-address cap apply. The hello timeout
 * is long here, so only these budgets can protect the legitimate clients.
 */
describe('connections that never send hello', () => {
  const limits = { maxConnections: 3, maxPendingConnections: 20, maxPendingPerAddress: 8, helloTimeoutMs: 600_000 };
  const fixture = useMemoryHub({ limits });
  const flood: WebSocket[] = [];
  afterAll(() => {
    for (const ws of flood) ws.terminate();
  });

  async function upgrades(count: number, localAddress: string): Promise<Outcome[]> {
    const outcomes = await Promise.all(
      Array.from({ length: count }, () => idleUpgrade(fixture.hub.wsUrl, localAddress)),
    );
    for (const outcome of outcomes) if ('open' in outcome) flood.push(outcome.open);
    return outcomes;
  }

  it('refuses idle upgrades beyond the per-address cap with 429', async () => {
    const outcomes = await upgrades(limits.maxPendingPerAddress + 4, '127.0.0.2');
    expect(outcomes.filter((outcome) => 'open' in outcome)).toHaveLength(limits.maxPendingPerAddress);
    expect(outcomes.filter((outcome) => 'status' in outcome && outcome.status === 429)).toHaveLength(4);
  });

  it('a flood of idle upgrades from many addresses neither holds more than its budget nor locks clients out', async () => {
    for (let host = 3; host < 13; host++) await upgrades(limits.maxPendingPerAddress, `127.0.0.${host}`);
    expect(fixture.hub.hub.pendingConnectionCount).toBeLessThanOrEqual(limits.maxPendingConnections);
    // The oldest idle sockets were dropped to make room for newer ones.
    await vi.waitFor(() => expect(flood.filter((ws) => ws.readyState === ws.CLOSED).length).toBeGreaterThan(0));

    const clients = await Promise.all(
      Array.from({ length: limits.maxConnections }, () => RawHubClient.connect(fixture.hub.wsUrl)),
    );
    expect(fixture.hub.hub.connectionCount).toBe(limits.maxConnections);
    const [writer] = clients;
    expect(
      await writer!.request({ type: 'append', sessionId: 'pending/ok', events: [{ type: 'x/y', data: 1 }] }),
    ).toMatchObject({ type: 'ack', firstSeq: 0 });

    // The node's connection budget holds those who said hello: one more is refused (1013), the others stay served.
    const extra = await RawHubClient.connect(fixture.hub.wsUrl, { hello: false });
    expect(await extra.request({ type: 'hello', versions: [1] })).toMatchObject({ code: 'TOO_MANY_CONNECTIONS' });
    expect((await extra.closed).code).toBe(CloseCode.TRY_AGAIN_LATER);
    expect(await writer!.request({ type: 'ping' })).toMatchObject({ type: 'pong' });
    await Promise.all(clients.map((client) => client.close()));
  });
});
