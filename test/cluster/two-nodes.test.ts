import { describe, expect } from 'vitest';
import { AgentWriter, HubClient, type Subscription } from '../../client/index.ts';
import { encodeMsgpackValue } from '../../shared/codec.ts';
import { deriveMessages, validateLifecycle } from '../../shared/index.ts';
import { untilSeq } from '../client/support.ts';
import { clusterTest, slotOf } from './cluster-hubs.ts';

const SESSIONS = 50;

const it = clusterTest.extend('keyPrefix', { scope: 'file' }, 'two:');

describe('two hub nodes on a Redis Cluster (3 masters + 3 replicas)', () => {
  it('serves 50 sessions spread over every shard: exact logs, derived messages, a complete list', async ({
    clusterHubs: fixture,
  }) => {
    const [a, b] = fixture.nodes;
    const sessionIds = Array.from({ length: SESSIONS }, (_, index) => `team/s${index}`);
    // The sessions really are spread over the three masters.
    const masters = (await fixture.cluster.topology()).filter((node) => node.role === 'master');
    const owners = new Set<string>();
    for (const sessionId of sessionIds) {
      const slot = await slotOf(fixture.cluster, fixture.stores[0]!.keys(sessionId).log);
      owners.add(masters.find((master) => master.slots.includes(slot))!.id);
    }
    expect(owners.size).toBe(3);

    const clients = [new HubClient({ url: a!.wsUrl }), new HubClient({ url: b!.wsUrl })];
    try {
      const watchers = new Map<string, Subscription[]>();
      for (const sessionId of sessionIds)
        watchers.set(
          sessionId,
          clients.map((client) => client.subscribe(sessionId)),
        );
      const lastSeqs = await Promise.all(
        sessionIds.map(async (sessionId, index) => {
          const writer = await AgentWriter.attach(clients[index % 2]!, sessionId);
          await writer.userMessage(`question ${index}`);
          await writer.startTurn();
          await writer.startStep();
          for (let chunk = 0; chunk < 5; chunk++) void writer.streamChunk(`c${chunk} `);
          await writer.commitAssistantMessage({ content: `answer ${index}`, toolCalls: [{ id: 'k', name: 'look' }] });
          await writer.toolCall({ callId: 'k', name: 'look', arguments: '{}' });
          await writer.toolResult({ callId: 'k', content: `seen ${index}` });
          await writer.endStep();
          await writer.endTurn('completed');
          await writer.flush();
          return writer.nextSeq - 1;
        }),
      );
      for (const [index, sessionId] of sessionIds.entries()) {
        const subscriptions = watchers.get(sessionId)!;
        await Promise.all(subscriptions.map((subscription) => untilSeq(subscription, lastSeqs[index]!)));
        const log = await fixture.stores[index % 2]!.read(sessionId, 0, 10_000);
        expect(log).toHaveLength(lastSeqs[index]! + 1);
        expect(validateLifecycle(log, { complete: true })).toEqual([]);
        const bytes = Buffer.from(encodeMsgpackValue(log));
        for (const subscription of subscriptions) {
          expect(Buffer.from(encodeMsgpackValue(subscription.events)).equals(bytes)).toBe(true);
          expect(subscription.messages).toEqual(deriveMessages(log));
        }
      }
      for (const node of [a!, b!]) {
        const listed = (await (await fetch(`${node.url}/v1/sessions`)).json()) as { sessions: { id: string }[] };
        expect(listed.sessions.map((session) => session.id).sort()).toEqual([...sessionIds].sort());
      }
    } finally {
      for (const client of clients) client.close();
    }
  });
});
