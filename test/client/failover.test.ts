import { afterAll, describe, expect, vi } from 'vitest';
import { AgentWriter, HubClient } from '../../client/index.ts';
import type { Subscription } from '../../client/index.ts';
import { deriveMessages, validateLifecycle } from '../../shared/index.ts';
import type { EventStore } from '../../server/index.ts';
import { test as it } from '../helpers/fixtures.ts';
import { startNode, type Node } from './hubs.ts';
import { untilSeq } from './support.ts';

describe('hub node shutdown and restart (two nodes, one Redis)', () => {
  let store: EventStore;
  // Both nodes on the one store; started here, as the test closes and restarts them.
  const nodes: Node[] = [];
  const clients: HubClient[] = [];

  it.beforeAll(async ({ redisStore }) => {
    store = redisStore;
    nodes.push(await startNode(store), await startNode(store));
  });
  afterAll(async () => {
    for (const client of clients) client.close();
    for (const node of nodes) await node.hub.close();
  });

  async function writeTurn(writer: AgentWriter, turn: number): Promise<void> {
    await writer.userMessage(`question ${turn}`);
    await writer.startTurn();
    await writer.startStep();
    for (let chunk = 0; chunk < 10; chunk++) void writer.streamChunk(`turn ${turn} chunk ${chunk}`);
    await writer.commitAssistantMessage({ content: `answer ${turn}` });
    await writer.endTurn('completed');
  }

  it('clients move to the other node on GOING_AWAY and back after a restart, each seq seen once', async () => {
    const sessionId = 'failover/1';
    const [a, b] = [nodes[0]!, nodes[1]!];
    const connect = (urls: string[]): HubClient => {
      // A backoff far beyond the test's waits: only the immediate reconnect after GOING_AWAY can pass.
      const client = new HubClient({ url: urls, reconnect: { initialDelayMs: 60_000, maxDelayMs: 60_000 } });
      clients.push(client);
      return client;
    };
    const watchers: Subscription[] = [];
    const delivered: number[][] = [];
    for (const urls of [
      [a.wsUrl, b.wsUrl],
      [b.wsUrl, a.wsUrl],
      [a.wsUrl, b.wsUrl],
    ]) {
      const subscription = connect(urls).subscribe(sessionId);
      const seqs: number[] = [];
      subscription.on('event', (event) => seqs.push(event.seq));
      watchers.push(subscription);
      delivered.push(seqs);
    }
    const agent = connect([a.wsUrl, b.wsUrl]);
    const writer = await AgentWriter.attach(agent, sessionId);
    await writeTurn(writer, 1);

    await a.hub.close(); // GOING_AWAY: clients of A reconnect to B at once
    await writeTurn(writer, 2);
    await writer.flush();
    expect(agent.url).toBe(b.wsUrl);

    nodes[0] = await startNode(store, a.port); // A restarts on its port; now B goes away
    await b.hub.close();
    await writeTurn(writer, 3);
    await writer.flush();
    await vi.waitFor(() => expect(agent.url).toBe(a.wsUrl));

    const lastSeq = writer.nextSeq - 1;
    await Promise.all(watchers.map((watcher) => untilSeq(watcher, lastSeq)));
    const log = await store.read(sessionId, 0, 1000);
    expect(log).toHaveLength(lastSeq + 1);
    expect(validateLifecycle(log, { complete: true })).toEqual([]);
    for (const [index, watcher] of watchers.entries()) {
      expect(watcher.events).toEqual(log);
      expect(delivered[index]).toEqual(log.map((event) => event.seq));
      expect(watcher.messages).toEqual(deriveMessages(log));
    }
  });
});
