import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { HubChatTransport } from '../../client/ai-sdk/index.ts';
import { AgentWriter, HubClient, HubClientError } from '../../client/index.ts';
import { sessionView } from '../../client/session-store.ts';
import { MemoryStore } from '../../server/index.ts';
import { startHub, type TestHub } from '../helpers/hub.ts';

describe('HubChatTransport on a client whose session view started from a hub snapshot', () => {
  let store: MemoryStore;
  let hub: TestHub;
  const clients: HubClient[] = [];
  const newClient = () => {
    const client = new HubClient({ url: hub.wsUrl });
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    store = new MemoryStore();
    hub = await startHub({ store, snapshots: { atTurnEnd: true } });
  });
  afterAll(async () => {
    for (const client of clients) client.close();
    await hub?.close();
    await store?.close();
  });

  it('reconnectToStream refuses (ALREADY_SUBSCRIBED) instead of guessing the pending reply from the tail', async () => {
    const sessionId = 'ai/snap-view';
    const writer = await AgentWriter.attach(newClient(), sessionId);
    await writer.userMessage('question 1');
    await writer.startTurn();
    await writer.startStep();
    await writer.commitAssistantMessage({ content: 'answer 1' });
    await writer.endStep();
    await writer.endTurn('completed');
    // An open turn: had it started before the snapshot the view joins from, its tail would not show it.
    await writer.userMessage('question 2');
    await writer.startTurn();
    await writer.flush();
    await vi.waitFor(
      async () => {
        const read = await store.snapshots.get(sessionId);
        expect(read.status === 'found' && read.snapshot.seq >= 0).toBe(true);
      },
      { timeout: 20_000, interval: 20 },
    );
    const client = newClient();
    const release = sessionView(client, sessionId, { from: 'snapshot' }).retain();
    const transport = new HubChatTransport({ client, sessionId });
    const reconnect = transport.reconnectToStream({ chatId: sessionId });
    await expect(reconnect).rejects.toBeInstanceOf(HubClientError);
    await expect(reconnect).rejects.toMatchObject({ code: 'ALREADY_SUBSCRIBED' });
    release();
  });
});
