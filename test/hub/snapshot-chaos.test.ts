import { Redis } from 'ioredis';
import { afterAll, describe, expect, vi } from 'vitest';
import { HubClient } from '../../client/index.ts';
import { RedisStore } from '../../server/index.ts';
import { deriveMessages, MessageProjector, type ProjectorState } from '../../shared/index.ts';
import { test } from '../helpers/fixtures.ts';
import { HubProcess } from '../helpers/hub-process.ts';
import { RawHubClient } from '../helpers/raw-hub-client.ts';

/**
 * Issue 28's chaos contract for hub-side snapshots: while a writer appends turns (with replaces aimed before the
 * snapshot, so a wrong base shows), joiners subscribe `{ from: 'snapshot' }` and every snapshot served over HTTP is
 * checked against the log; a node is SIGKILLed while it builds, and Redis is flushed (a new epoch).
 */
const it = test.extend('keyPrefix', { scope: 'file' }, 'snapchaos:');
const SESSION = 'chaos/snap';
const WAIT = { timeout: 30_000, interval: 25 };
const ROUNDS_PER_PHASE = 6;

const user = (content: string) => ({ type: 'user/message', data: { role: 'user', content } });

interface ServedBody {
  readonly epoch?: string;
  readonly seq: number;
  readonly state: ProjectorState;
}

describe('hub snapshots under chaos (node SIGKILL mid-build, FLUSHALL)', () => {
  const nodes: HubProcess[] = [];
  const clients: HubClient[] = [];
  let store: RedisStore;
  afterAll(async () => {
    for (const client of clients) client.close();
    for (const node of nodes) if (node.child.exitCode === null && node.child.signalCode === null) await node.kill();
    await store?.close();
  });

  it('no joiner and no HTTP read ever gets a snapshot that differs from the log it claims', async ({
    redis,
    keyPrefix,
  }) => {
    store = await RedisStore.open({ url: redis.url, keyPrefix });
    const start = () => HubProcess.start(['--redis', redis.url, '--key-prefix', keyPrefix]);
    nodes.push(await start(), await start());
    let userSeqs: number[] = [];
    let round = 0;
    /** Turns numbered from 1 in each epoch (the lifecycle rules check the order). */
    let turn = 0;
    let snapshotsChecked = 0;

    /** Append one batch on `node`, retrying while the store or the node recovers. */
    const append = async (node: HubProcess, events: unknown[]): Promise<number> => {
      let firstSeq = -1;
      const writer = await RawHubClient.connect(node.wsUrl);
      try {
        await vi.waitFor(async () => {
          const reply = await writer.request({ type: 'append', sessionId: SESSION, events });
          if (reply.type !== 'ack') throw new Error(JSON.stringify(reply));
          firstSeq = reply.firstSeq;
        }, WAIT);
      } finally {
        await writer.close();
      }
      return firstSeq;
    };

    /** One turn: a user message, maybe a replace of an earlier user message, a turn end (a build trigger). */
    const writeRound = async (node: HubProcess): Promise<void> => {
      round += 1;
      turn += 1;
      const events: unknown[] = [{ type: 'turn/start', data: { turn } }, user(`q${round}`)];
      const slot = round % Math.max(1, userSeqs.length);
      const target = userSeqs.length > 2 ? userSeqs[slot] : undefined;
      if (target !== undefined) {
        events.push({
          ...user(`rewritten ${round}`),
          surfaceOp: { op: 'replace', startSeq: target, endSeq: target },
          sourceEventSeqs: [target],
        });
      }
      events.push({ type: 'turn/end', data: { turn, reason: { kind: 'completed' } } });
      const firstSeq = await append(node, events);
      // The replacement takes the replaced message's place on the surface.
      if (target !== undefined) userSeqs[slot] = firstSeq + 2;
      userSeqs.push(firstSeq + 1);
    };

    /** The snapshot served over HTTP by `node` ≡ deriveMessages(log[0..seq]) while its epoch is the store's. */
    const checkServedSnapshot = async (node: HubProcess): Promise<void> => {
      const response = await fetch(`${node.url}/v1/sessions/${encodeURIComponent(SESSION)}/snapshot`);
      expect(response.status).toBe(200);
      const body = (await response.json()) as ServedBody;
      if (body.seq < 0) return;
      const head = await store.head(SESSION);
      // Served under an epoch the store no longer has: it was current when served (the log changed since).
      if (head.epoch !== body.epoch) return;
      const log = await store.read(SESSION, 0, body.seq + 1);
      expect(log).toHaveLength(body.seq + 1);
      expect(MessageProjector.fromState(body.state).messages).toEqual(deriveMessages(log));
      snapshotsChecked += 1;
    };

    /** A joiner from the snapshot on `node`: once it holds the head, its messages ≡ deriveMessages(whole log). */
    const checkJoiner = async (node: HubProcess): Promise<void> => {
      const client = new HubClient({ url: node.wsUrl });
      clients.push(client);
      const joiner = client.subscribe(SESSION, { from: 'snapshot' });
      try {
        const head = await store.head(SESSION);
        await vi.waitFor(() => expect(joiner.lastSeq).toBeGreaterThanOrEqual(head.headSeq), WAIT);
        const log = await store.read(SESSION, 0, joiner.lastSeq + 1);
        expect(joiner.messages).toEqual(deriveMessages(log));
      } finally {
        joiner.close();
        client.close();
      }
    };

    const phase = async (writeOn: HubProcess, readOn: HubProcess): Promise<void> => {
      for (let step = 0; step < ROUNDS_PER_PHASE; step++) {
        await Promise.all([writeRound(writeOn), checkServedSnapshot(readOn), checkServedSnapshot(writeOn)]);
        await checkJoiner(readOn);
      }
    };

    // Phase 1: both nodes up, node 0 commits (so node 0 builds).
    await phase(nodes[0]!, nodes[1]!);

    // Phase 2: SIGKILL node 0 while it builds (a turn end was just committed there), the survivor goes on.
    const building = writeRound(nodes[0]!);
    await building;
    await nodes[0]!.kill();
    nodes.push(await start());
    await phase(nodes[1]!, nodes[2]!);

    // Phase 3: FLUSHALL (data lost, no persistence): a new epoch; the old snapshot must never come back.
    const before = await store.head(SESSION);
    const admin = new Redis(redis.url, { lazyConnect: true });
    await admin.connect();
    await admin.flushall();
    await admin.quit();
    userSeqs = [];
    turn = 0;
    await phase(nodes[1]!, nodes[2]!);
    const after = await store.head(SESSION);
    expect(after.epoch).toBeDefined();
    expect(after.epoch).not.toBe(before.epoch);
    // The snapshot served now is of the new epoch (or none yet): never the old one.
    for (const node of [nodes[1]!, nodes[2]!]) {
      const body = (await (
        await fetch(`${node.url}/v1/sessions/${encodeURIComponent(SESSION)}/snapshot`)
      ).json()) as ServedBody;
      expect(body.seq < 0 || body.epoch === after.epoch).toBe(true);
      await checkServedSnapshot(node);
    }
    // Builds happened across the phases: the checks above compared real snapshots, not only empty ones.
    expect(snapshotsChecked).toBeGreaterThan(0);
  }, 240_000);
});
