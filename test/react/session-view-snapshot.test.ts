import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AgentWriter, HubClient } from '../../client/index.ts';
import { sessionView, type SessionSnapshot } from '../../client/session-store.ts';
import { MemoryStore } from '../../server/index.ts';
import { deriveMessages } from '../../shared/index.ts';
import { startHub, type TestHub } from '../helpers/hub.ts';

const WAIT = { timeout: 20_000, interval: 20 };

async function writeTurn(writer: AgentWriter, turn: number, chunks: number): Promise<void> {
  await writer.userMessage(`question ${turn}`);
  await writer.startTurn();
  await writer.startStep();
  for (let chunk = 0; chunk < chunks; chunk++) void writer.streamChunk(`t${turn}c${chunk} `);
  await writer.commitAssistantMessage({ content: `answer ${turn}` });
  await writer.endStep();
  await writer.endTurn('completed');
}

/** The store under `useSession`: the shared view of a session, here joined from the hub's snapshot. */
describe('useSession from a hub snapshot (the shared session view, real hub)', () => {
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
    hub = await startHub({ store, snapshots: { everyEvents: 20 } });
  });
  afterAll(async () => {
    for (const client of clients) client.close();
    await hub?.close();
    await store?.close();
  });

  it('joins with exact messages from the first emit, events holding only the tail after snapshotSeq', async () => {
    const sessionId = 'react/snap';
    const writer = await AgentWriter.attach(newClient(), sessionId);
    for (let turn = 1; turn <= 3; turn++) await writeTurn(writer, turn, 15);
    await writer.flush();
    await vi.waitFor(async () => {
      const read = await store.snapshots.get(sessionId);
      expect(read.status === 'found' && read.snapshot.seq >= 20).toBe(true);
    }, WAIT);

    const view = sessionView(newClient(), sessionId, { from: 'snapshot' });
    const pictures: SessionSnapshot[] = [];
    const unsubscribe = view.subscribe(() => pictures.push(view.getSnapshot()));
    // More turns while the view follows: they land in its tail.
    await writeTurn(writer, 4, 5);
    await writer.flush();
    const lastSeq = writer.nextSeq - 1;
    await vi.waitFor(() => expect(view.getSnapshot().lastSeq).toBe(lastSeq), WAIT);
    unsubscribe();

    const log = await store.read(sessionId, 0, 10_000);
    expect(log).toHaveLength(lastSeq + 1);
    const expected = deriveMessages(log);
    const final = pictures[pictures.length - 1]!;
    expect(final.messages).toEqual(expected);
    const snapshotSeq = final.snapshotSeq!;
    expect(snapshotSeq).toBeGreaterThanOrEqual(20);
    expect(final.events.map((event) => event.seq)).toEqual(log.slice(snapshotSeq + 1).map((event) => event.seq));
    // From the first picture that holds anything, the messages are those of the log up to its lastSeq.
    const first = pictures.find((picture) => picture.lastSeq >= 0)!;
    expect(first.snapshotSeq).toBe(snapshotSeq);
    expect(first.messages).toEqual(deriveMessages(log.slice(0, first.lastSeq + 1)));
  });

  it('without from: snapshot the view holds the whole log from seq 0', async () => {
    const sessionId = 'react/whole';
    const writer = await AgentWriter.attach(newClient(), sessionId);
    for (let turn = 1; turn <= 2; turn++) await writeTurn(writer, turn, 15);
    await writer.flush();
    await vi.waitFor(async () => {
      const read = await store.snapshots.get(sessionId);
      expect(read.status).toBe('found');
    }, WAIT);
    const view = sessionView(newClient(), sessionId);
    const release = view.retain();
    const lastSeq = writer.nextSeq - 1;
    await vi.waitFor(() => expect(view.getSnapshot().lastSeq).toBe(lastSeq), WAIT);
    const picture = view.getSnapshot();
    expect(picture.snapshotSeq).toBeUndefined();
    expect(picture.events.map((event) => event.seq)).toEqual(Array.from({ length: lastSeq + 1 }, (_, seq) => seq));
    release();
  });
});
