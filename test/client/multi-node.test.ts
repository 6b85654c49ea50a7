import { afterAll, describe, expect } from 'vitest';
import { AgentWriter, HubClient } from '../../client/index.ts';
import type { Subscription } from '../../client/index.ts';
import { encodeMsgpackValue } from '../../shared/codec.ts';
import { deriveMessages, validateLifecycle } from '../../shared/index.ts';
import type { EventStore } from '../../server/index.ts';
import { test as it } from '../helpers/fixtures.ts';
import type { TestHub } from '../helpers/hub.ts';
import { untilSeq } from './support.ts';

describe('several watchers on two hub nodes (one Redis)', () => {
  let stores: readonly EventStore[];
  let nodes: readonly TestHub[];
  const clients: HubClient[] = [];

  it.beforeAll(({ redisHubs }) => {
    ({ stores, nodes } = redisHubs.cluster);
  });
  afterAll(() => {
    for (const client of clients) client.close();
  });

  it('end with byte-identical logs and messages equal to deriveMessages(log)', async () => {
    const sessionId = 'nodes/1';
    const watchers: Subscription[] = [];
    for (let index = 0; index < 6; index++) {
      const client = new HubClient({ url: nodes[index % 2]!.wsUrl });
      clients.push(client);
      watchers.push(client.subscribe(sessionId));
    }
    const agent = new HubClient({ url: nodes[0]!.wsUrl });
    clients.push(agent);
    const writer = await AgentWriter.attach(agent, sessionId);
    await writer.setSystemPrompt('be brief');
    for (let turn = 1; turn <= 3; turn++) {
      await writer.userMessage(`question ${turn}`);
      await writer.startTurn();
      await writer.startStep();
      for (let chunk = 0; chunk < 20; chunk++) void writer.streamChunk(`t${turn}c${chunk} `);
      await writer.commitAssistantMessage({ content: `answer ${turn}`, toolCalls: [{ id: `k${turn}`, name: 'look' }] });
      await writer.toolCall({ callId: `k${turn}`, name: 'look', arguments: '{}' });
      await writer.toolResult({ callId: `k${turn}`, content: `seen ${turn}` });
      await writer.endStep();
      await writer.endTurn('completed');
      // A late joiner on the other node for the last turn.
      if (turn === 2) {
        const late = new HubClient({ url: nodes[1]!.wsUrl });
        clients.push(late);
        watchers.push(late.subscribe(sessionId));
      }
    }
    await writer.flush();
    const lastSeq = writer.nextSeq - 1;
    await Promise.all(watchers.map((watcher) => untilSeq(watcher, lastSeq)));

    const log = await stores[1]!.read(sessionId, 0, 10_000);
    expect(log).toHaveLength(lastSeq + 1);
    expect(validateLifecycle(log, { complete: true })).toEqual([]);
    const expectedBytes = Buffer.from(encodeMsgpackValue(log));
    const expectedMessages = deriveMessages(log);
    for (const watcher of watchers) {
      expect(Buffer.from(encodeMsgpackValue(watcher.events)).equals(expectedBytes)).toBe(true);
      expect(watcher.messages).toEqual(expectedMessages);
    }
  });
});
