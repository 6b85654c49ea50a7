import { readUIMessageStream, type UIMessageChunk } from 'ai';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { HubChatTransport, type HubUIMessage } from '../../client/ai-sdk/index.ts';
import { AgentWriter, HubClient } from '../../client/index.ts';
import { sessionView } from '../../client/session-store.ts';
import { MemoryStore } from '../../server/index.ts';
import { startHub, type TestHub } from '../helpers/hub.ts';

async function read(stream: ReadableStream<UIMessageChunk> | null): Promise<HubUIMessage | undefined> {
  if (stream === null) return undefined;
  let last: HubUIMessage | undefined;
  for await (const message of readUIMessageStream<HubUIMessage>({ stream, terminateOnError: true })) last = message;
  return last;
}

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
    // A snapshot every 5 events: one lands inside a turn, after its turn/start.
    hub = await startHub({ store, snapshots: { everyEvents: 5, atTurnEnd: true } });
  });
  afterAll(async () => {
    for (const client of clients) client.close();
    await hub?.close();
    await store?.close();
  });

  it('reconnectToStream resumes a turn that started before the snapshot, and a waiting user message, as from seq 0', async () => {
    const sessionId = 'ai/snap-view';
    const writer = await AgentWriter.attach(newClient(), sessionId);
    await writer.userMessage('question 1');
    await writer.startTurn(); // seq 1
    await writer.startStep();
    for (let chunk = 0; chunk < 10; chunk++) void writer.streamChunk(`c${chunk} `);
    await writer.flush(); // seqs 3..12
    await vi.waitFor(
      async () => {
        const read = await store.snapshots.get(sessionId);
        expect(read.status === 'found' && read.snapshot.seq >= 9).toBe(true);
      },
      { timeout: 20_000, interval: 20 },
    );

    // One client's shared view starts on the hub snapshot (its tail begins inside the turn), another's at seq 0.
    const fromSnapshot = newClient();
    const release = sessionView(fromSnapshot, sessionId, { from: 'snapshot' }).retain();
    const snapshotChat = new HubChatTransport({ client: fromSnapshot, sessionId });
    const wholeChat = new HubChatTransport({ client: newClient(), sessionId });
    const resumed = await snapshotChat.reconnectToStream({ chatId: sessionId });
    const reference = await wholeChat.reconnectToStream({ chatId: sessionId });
    const view = fromSnapshot.subscriptionOf(sessionId)!;
    expect(view.snapshotSeq).toBeGreaterThanOrEqual(9);
    expect(view.events.some((event) => event.type === 'turn/start')).toBe(false);
    expect(resumed).not.toBeNull();

    const firstTurn = Promise.all([read(resumed), read(reference)]);
    for (let chunk = 10; chunk < 14; chunk++) void writer.streamChunk(`c${chunk} `);
    await writer.commitAssistantMessage({ content: 'answer 1' });
    await writer.endStep();
    await writer.endTurn('completed');
    const [snapshotTurn, wholeTurn] = await firstTurn;
    expect(snapshotTurn).toEqual(wholeTurn);
    expect(snapshotTurn?.metadata).toEqual({ turn: 1, status: 'completed' });
    // The chunks streamed before the snapshot (paged in over HTTP) and after it, each once, in order.
    const text = Array.from({ length: 14 }, (_, chunk) => `c${chunk} `).join('');
    expect(snapshotTurn?.parts).toContainEqual({ type: 'text', text, state: 'done' });

    // A user message no turn answers yet: both follow the turn it gets.
    await writer.userMessage('question 2');
    await writer.flush();
    const bothHold = (seq: number) =>
      vi.waitFor(
        () => {
          for (const client of [fromSnapshot, wholeChat.client])
            expect(client.subscriptionOf(sessionId)!.lastSeq).toBe(seq);
        },
        { timeout: 20_000, interval: 20 },
      );
    await bothHold(writer.nextSeq - 1);
    const waiting = await snapshotChat.reconnectToStream({ chatId: sessionId });
    const waitingReference = await wholeChat.reconnectToStream({ chatId: sessionId });
    expect(waiting).not.toBeNull();
    const secondTurn = Promise.all([read(waiting), read(waitingReference)]);
    await writer.startTurn();
    await writer.startStep();
    await writer.commitAssistantMessage({ content: 'answer 2' });
    await writer.endStep();
    await writer.endTurn('completed');
    const [snapshotSecond, wholeSecond] = await secondTurn;
    expect(snapshotSecond).toEqual(wholeSecond);
    expect(snapshotSecond?.metadata).toEqual({ turn: 2, status: 'completed' });

    // Nothing pending any more: both say so.
    await writer.flush();
    await bothHold(writer.nextSeq - 1);
    expect(await snapshotChat.reconnectToStream({ chatId: sessionId })).toBeNull();
    expect(await wholeChat.reconnectToStream({ chatId: sessionId })).toBeNull();
    release();
  });

  it('a client view joined on a snapshot at a turn end with nothing after it reads back and finds nothing pending', async () => {
    const sessionId = 'ai/snap-idle';
    const writer = await AgentWriter.attach(newClient(), sessionId);
    await writer.userMessage('hello');
    await writer.startTurn();
    await writer.startStep();
    await writer.commitAssistantMessage({ content: 'hi' });
    await writer.endStep();
    await writer.endTurn('completed');
    await writer.flush();
    const endSeq = writer.nextSeq - 1;
    await vi.waitFor(
      async () => {
        const read = await store.snapshots.get(sessionId);
        expect(read.status === 'found' && read.snapshot.seq === endSeq).toBe(true);
      },
      { timeout: 20_000, interval: 20 },
    );
    const client = newClient();
    const release = sessionView(client, sessionId, { from: 'snapshot' }).retain();
    const transport = new HubChatTransport({ client, sessionId });
    expect(await transport.reconnectToStream({ chatId: sessionId })).toBeNull();
    expect(client.subscriptionOf(sessionId)!.events).toEqual([]);
    release();
  });
});
