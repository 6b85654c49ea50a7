import { afterAll, describe, expect, vi } from 'vitest';
import { AgentWriter, HubClient } from '../../client/index.ts';
import type { Subscription } from '../../client/index.ts';
import { deriveMessages, type DerivedMessage } from '../../shared/index.ts';
import type { EventStore } from '../../server/index.ts';
import { test } from '../helpers/fixtures.ts';
import type { TestHub } from '../helpers/hub.ts';
import { untilSeq } from './support.ts';

const it = test.extend('hubConfig', { scope: 'file' }, { snapshots: { everyEvents: 20 } });
const WAIT = { timeout: 20_000, interval: 20 };

async function writeTurn(writer: AgentWriter, turn: number, chunks: number): Promise<void> {
  await writer.userMessage(`question ${turn}`);
  await writer.startTurn();
  await writer.startStep();
  for (let chunk = 0; chunk < chunks; chunk++) void writer.streamChunk(`t${turn}c${chunk} `);
  await writer.commitAssistantMessage({ content: `answer ${turn}`, toolCalls: [{ id: `k${turn}`, name: 'look' }] });
  await writer.toolCall({ callId: `k${turn}`, name: 'look', arguments: '{}' });
  await writer.toolResult({ callId: `k${turn}`, content: `seen ${turn}` });
  await writer.endStep();
  await writer.endTurn('completed');
}

/** What a watcher held after each event: its seq and a copy of its messages. */
function recordMessages(watcher: Subscription): { seq: number; messages: DerivedMessage[] }[] {
  const seen: { seq: number; messages: DerivedMessage[] }[] = [];
  watcher.on('event', (event) => seen.push({ seq: event.seq, messages: structuredClone([...watcher.messages]) }));
  return seen;
}

describe('subscribe from a hub snapshot (two hub nodes, one Redis)', () => {
  let stores: readonly EventStore[];
  let nodes: readonly TestHub[];
  const clients: HubClient[] = [];
  const client = (node: number): HubClient => {
    const made = new HubClient({ url: nodes[node]!.wsUrl });
    clients.push(made);
    return made;
  };

  it.beforeAll(({ redisHubs }) => {
    ({ stores, nodes } = redisHubs.cluster);
  });
  afterAll(() => {
    for (const made of clients) made.close();
  });

  it('messages are exact from the first emit, events hold the tail, no gap or duplicate under concurrent appends', async () => {
    const sessionId = 'snap/join';
    const writer = await AgentWriter.attach(client(0), sessionId);
    await writer.setSystemPrompt('be brief');
    for (let turn = 1; turn <= 3; turn++) await writeTurn(writer, turn, 15);
    await writer.flush();
    await vi.waitFor(async () => {
      const read = await stores[1]!.snapshots.get(sessionId);
      expect(read.status === 'found' && read.snapshot.seq >= 20).toBe(true);
    }, WAIT);

    // Appends go on, on both nodes, while the watcher joins: prunes and a system prompt change aimed before the
    // snapshot's seq, new turns, chunks.
    const second = await AgentWriter.attach(client(1), 'snap/other');
    const going = (async () => {
      await writer.pruneToolResult('k1', '[pruned]');
      await writer.setSystemPrompt('be briefer');
      await writeTurn(writer, 4, 10);
      await writer.pruneToolResult('k4', '[pruned 4]');
      await writeTurn(writer, 5, 10);
      await writer.flush();
      await second.userMessage('elsewhere');
    })();
    const watcher = client(1).subscribe(sessionId, { from: 'snapshot' });
    const firstMessages: DerivedMessage[][] = [];
    watcher.once('messages', (_change, messages) => firstMessages.push(structuredClone([...messages])));
    const seen = recordMessages(watcher);
    await going;
    const lastSeq = writer.nextSeq - 1;
    await untilSeq(watcher, lastSeq);

    const log = await stores[0]!.read(sessionId, 0, 10_000);
    expect(log).toHaveLength(lastSeq + 1);
    const snapshotSeq = watcher.snapshotSeq!;
    expect(snapshotSeq).toBeGreaterThanOrEqual(20);
    // events: the tail after the snapshot, contiguous to the head.
    expect(watcher.events.map((event) => event.seq)).toEqual(
      Array.from({ length: lastSeq - snapshotSeq }, (_, index) => snapshotSeq + 1 + index),
    );
    expect(watcher.events).toEqual(log.slice(snapshotSeq + 1));
    expect(firstMessages[0]).toEqual(deriveMessages(log.slice(0, snapshotSeq + 1)));
    for (const { seq, messages } of seen) expect(messages).toEqual(deriveMessages(log.slice(0, seq + 1)));
    expect(watcher.messages).toEqual(deriveMessages(log));
    expect(watcher.messagesComplete).toBe(true);
  });

  it('a resumed copy that is current is kept; one of a replaced session gives way to the hub snapshot', async () => {
    const sessionId = 'snap/resume';
    const writer = await AgentWriter.attach(client(0), sessionId);
    await writeTurn(writer, 1, 3);
    await writer.flush();
    const first = client(1).subscribe(sessionId);
    await untilSeq(first, writer.nextSeq - 1);
    const kept = first.snapshot();
    first.close();

    // Current (the copy ends at the last turn end, where the hub's snapshot is at most): the hub answers
    // `state: null` and the copy goes on from its own last seq, also through what is written after.
    const resumed = client(0).subscribe(sessionId, { resume: kept, from: 'snapshot' });
    await resumed.whenLive();
    await writeTurn(writer, 2, 3);
    await writer.flush();
    await untilSeq(resumed, writer.nextSeq - 1);
    expect(resumed.snapshotSeq).toBeUndefined();
    expect(resumed.fromSeq).toBe(0);
    const log = await stores[0]!.read(sessionId, 0, 10_000);
    expect(resumed.messages).toEqual(deriveMessages(log));
    resumed.close();

    // Replaced (deleted and rewritten: another epoch): the kept copy is dropped, never mixed with the new log.
    await stores[0]!.deleteSession(sessionId);
    const rewriter = await AgentWriter.attach(client(0), sessionId);
    await writeTurn(rewriter, 1, 30);
    await rewriter.flush();
    await vi.waitFor(async () => {
      expect((await stores[1]!.snapshots.get(sessionId)).status).toBe('found');
    }, WAIT);
    const fresh = client(1).subscribe(sessionId, { resume: kept, from: 'snapshot' });
    const resets: string[] = [];
    fresh.on('reset', (epoch) => resets.push(epoch));
    await untilSeq(fresh, rewriter.nextSeq - 1);
    const rewritten = await stores[0]!.read(sessionId, 0, 10_000);
    expect(resets).toHaveLength(1);
    expect(fresh.snapshotSeq).toBeGreaterThanOrEqual(0);
    expect(fresh.messages).toEqual(deriveMessages(rewritten));
    expect(fresh.messages.some((message) => JSON.stringify(message).includes('question 2'))).toBe(false);
    // What it keeps to resume carries the snapshot's state: a resume from it derives exact messages at once.
    const again = fresh.snapshot();
    expect(again.base).toBeDefined();
    fresh.close();
    const third = client(0).subscribe(sessionId, { resume: again });
    expect(third.messages).toEqual(deriveMessages(rewritten));
    third.close();
  });
});
