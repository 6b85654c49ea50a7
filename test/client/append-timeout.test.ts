import { afterEach, describe, expect, it } from 'vitest';
import { AgentWriter, HubClient } from '../../client/index.ts';
import { MemoryStore } from '../../server/index.ts';
import { startHub, type TestHub } from '../helpers/hub.ts';
import { thrown } from '../helpers/thrown.ts';
import { HeldStore } from './hubs.ts';

const note = (n: number) => ({ type: 'test/n', data: { n } });

describe('SDK: append timeouts', () => {
  let hub: TestHub | undefined;
  let client: HubClient | undefined;
  let releaseHeld = (): void => undefined;
  afterEach(async () => {
    releaseHeld(); // a held commit would hold up the hub's close
    client?.close();
    await hub?.close();
  });

  it('timeoutMs Infinity (per append or requestTimeoutMs) or above 2^31 - 1 ms does not fire early', async () => {
    // setTimeout fires a delay above 2^31 - 1 ms (Infinity included) after 1 ms: such an append used to commit
    // and reject with TIMEOUT anyway.
    const store = new HeldStore();
    hub = await startHub({ store });
    client = new HubClient({ url: hub.wsUrl, requestTimeoutMs: Number.POSITIVE_INFINITY });
    releaseHeld = () => store.release();
    // Connected first, so every append below goes on the wire at once (one never sent would be NOT_SENT).
    await new Promise<void>((resolve) => client!.once('state', () => resolve()));
    expect(client.state).toBe('connected');
    const settled: string[] = [];
    const appends = [
      client.append('timeout/1', note(0)),
      client.append('timeout/1', note(1), { timeoutMs: 2 ** 31 }),
      client.append('timeout/1', note(2), { timeoutMs: Number.POSITIVE_INFINITY }),
    ].map((append, index) => {
      append.then(
        () => settled.push(`${index} committed`),
        (error: unknown) => settled.push(`${index} failed: ${String(error)}`),
      );
      return append;
    });
    // The first commit is held, so nothing is acknowledged. Once this append (queued behind them) times out after
    // 50 ms, a timer of theirs that overflowed to 1 ms would have fired: it was set earlier, for a shorter time.
    await expect(client.append('timeout/1', note(3), { timeoutMs: 50 })).rejects.toMatchObject({
      code: 'TIMEOUT',
      details: { timeoutMs: 50 },
    });
    expect(settled).toEqual([]);
    store.release();
    const committed = await Promise.all(appends);
    expect(committed.map(([event]) => event?.seq)).toEqual([0, 1, 2]);
  });

  it('a negative or NaN timeout is refused with BAD_REQUEST before anything is queued', async () => {
    const store = new MemoryStore();
    hub = await startHub({ store });
    for (const requestTimeoutMs of [-1, Number.NaN]) {
      expect(thrown(() => new HubClient({ url: hub!.wsUrl, requestTimeoutMs }))).toMatchObject({
        code: 'BAD_REQUEST',
        message: expect.stringContaining('requestTimeoutMs') as unknown,
      });
    }
    client = new HubClient({ url: hub.wsUrl });
    for (const timeoutMs of [-1, Number.NaN, Number.NEGATIVE_INFINITY]) {
      const refused = client.append('timeout/2', note(0), { timeoutMs });
      expect(client.pendingAppends).toBe(0);
      await expect(refused).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    }
    await expect(AgentWriter.attach(client, 'timeout/2', { events: [], timeoutMs: -1 })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
    const [event] = await client.append('timeout/2', note(1), { timeoutMs: 0x7fffffff });
    expect(event?.seq).toBe(0);
    expect(await store.read('timeout/2', 0, 10)).toHaveLength(1);
  });
});
