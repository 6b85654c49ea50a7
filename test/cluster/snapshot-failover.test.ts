import { Redis } from 'ioredis';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { HubClient } from '../../client/index.ts';
import { RedisStore } from '../../server/store/redis/redis-store.ts';
import { deriveMessages, MessageProjector, type ProjectorState } from '../../shared/index.ts';
import { startHub, type TestHub } from '../helpers/hub.ts';
import { RedisSentinelSetup } from '../helpers/redis-sentinel.ts';
import { RawHubClient } from '../helpers/raw-hub-client.ts';

const SESSION = 'snap/failover';
const WAIT = { timeout: 30_000, interval: 25 };
const user = (content: string) => ({ type: 'user/message', data: { role: 'user', content } });
const turnOf = (turn: number) => [
  { type: 'turn/start', data: { turn } },
  user(`q${turn}`),
  { type: 'turn/end', data: { turn, reason: { kind: 'completed' } } },
];

/**
 * Issue 28: a Sentinel failover to a lagging replica loses the log's tail and the snapshot built on it; the old
 * snapshot above the new head is never served, and the snapshots built after the failover (the lost seqs reused
 * under the same epoch) match the new log.
 */
describe('snapshots across a Sentinel failover that loses the tail', () => {
  let setup: RedisSentinelSetup | undefined;
  let store: RedisStore | undefined;
  let hub: TestHub | undefined;
  afterAll(async () => {
    await hub?.close();
    await store?.close();
    await setup?.stop();
  });

  it('never serves the lost snapshot; later snapshots and joiners equal the log', async () => {
    setup = await RedisSentinelSetup.start();
    store = await RedisStore.open({
      sentinels: setup.sentinelList.split(','),
      sentinelName: setup.name,
      onError: () => undefined, // the killed master's connection errors, expected here
    });
    hub = await startHub({ store, snapshots: { everyEvents: 1_000, atTurnEnd: true } });
    const activeHub = hub;
    const activeStore = store;
    let turn = 0;
    const append = async (): Promise<void> => {
      turn += 1;
      const events = turnOf(turn);
      const writer = await RawHubClient.connect(activeHub.wsUrl);
      try {
        await vi.waitFor(async () => {
          const reply = await writer.request({ type: 'append', sessionId: SESSION, events });
          if (reply.type !== 'ack') throw new Error(JSON.stringify(reply));
        }, WAIT);
      } finally {
        await writer.close();
      }
    };
    const snapshotAt = async (seq: number): Promise<void> =>
      vi.waitFor(async () => {
        const read = await activeStore.snapshots.get(SESSION);
        expect(read.status === 'found' && read.snapshot.seq).toBe(seq);
      }, WAIT);
    const served = async (): Promise<{ epoch?: string; seq: number; state: ProjectorState }> =>
      (await (await fetch(`${activeHub.url}/v1/sessions/${encodeURIComponent(SESSION)}/snapshot`)).json()) as {
        epoch?: string;
        seq: number;
        state: ProjectorState;
      };

    for (let index = 0; index < 3; index++) await append();
    await snapshotAt(8);
    // The replica has the log and the snapshot up to seq 8.
    const replicaView = new Redis(setup.replica.url);
    const keys = activeStore.keys(SESSION);
    await vi.waitFor(async () => expect(await replicaView.xlen(keys.log)).toBe(9), WAIT);
    await vi.waitFor(async () => expect(await replicaView.hget(keys.snapshot, 's')).toBe('8'), WAIT);
    replicaView.disconnect();

    // The replica misses what follows (frozen, its link dropped): two more turns and their snapshot at seq 14.
    setup.replica.pause();
    const admin = new Redis(setup.master.url);
    await admin.call('CLIENT', 'KILL', 'TYPE', 'replica');
    admin.disconnect();
    for (let index = 0; index < 2; index++) await append();
    await snapshotAt(14);
    expect((await served()).seq).toBe(14);
    const epoch = (await activeStore.head(SESSION)).epoch;

    await setup.master.kill();
    setup.replica.resume(); // promoted without seqs 9..14 nor the snapshot at 14
    await vi.waitFor(async () => expect(await setup!.currentMasterPort()).toBe(setup!.replica.port), WAIT);
    await vi.waitFor(async () => expect((await activeStore.head(SESSION)).headSeq).toBe(8), WAIT);
    const afterFailover = await served();
    expect(afterFailover.seq).toBeLessThanOrEqual(8);

    // New turns reuse seqs 9.. under the same epoch: every snapshot served and a joiner equal the new log.
    turn = 3;
    for (let index = 0; index < 3; index++) {
      await append();
      const body = await served();
      const log = await activeStore.read(SESSION, 0, 10_000);
      expect(body.epoch).toBe(epoch);
      expect(body.seq).toBeLessThan(log.length);
      if (body.seq >= 0) {
        expect(MessageProjector.fromState(body.state).messages).toEqual(deriveMessages(log.slice(0, body.seq + 1)));
      }
    }
    await snapshotAt(17);
    const client = new HubClient({ url: activeHub.wsUrl });
    try {
      const joiner = client.subscribe(SESSION, { from: 'snapshot' });
      await vi.waitFor(() => expect(joiner.lastSeq).toBe(17), WAIT);
      expect(joiner.messages).toEqual(deriveMessages(await activeStore.read(SESSION, 0, 10_000)));
      expect(joiner.messages.map((message) => message.content)).toEqual(['q1', 'q2', 'q3', 'q4', 'q5', 'q6']);
    } finally {
      client.close();
    }
  }, 180_000);
});
