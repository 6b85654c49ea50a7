import { afterAll, describe, expect, vi } from 'vitest';
import type { ServerMessage } from '../../shared/protocol.ts';
import type { EventStore, GroupCommitRequest, GroupCommitResult } from '../../server/store/event-store.ts';
import type { TestHub } from '../helpers/hub.ts';
import { range, RawHubClient } from '../helpers/raw-hub-client.ts';
import { storeEngines } from '../helpers/engines.ts';
import { test, type EngineHubFixture } from '../helpers/fixtures.ts';

const user = (content: string) => ({ type: 'user/message', data: { role: 'user', content } });
const WAIT = { timeout: 10_000, interval: 5 };

const engines = storeEngines('gc:').map((engine) => ({
  name: engine.name,
  it: test.extend('engine', { scope: 'file' }, engine),
}));

/**
 * Holds the next group commit of the store at a gate (a real store, delayed), so that the appends sent meanwhile
 * are queued behind it on the hub.
 */
function holdNextCommit(store: EventStore): { reached: Promise<void>; open(): void } {
  const commitGroup = store.commitGroup.bind(store);
  let open = (): void => undefined;
  let reached = (): void => undefined;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const reachedPromise = new Promise<void>((resolve) => {
    reached = resolve;
  });
  store.commitGroup = async (request: GroupCommitRequest): Promise<GroupCommitResult> => {
    store.commitGroup = commitGroup;
    reached();
    await gate;
    return commitGroup(request);
  };
  return { reached: reachedPromise, open };
}

type Reply = Extract<ServerMessage, { type: 'ack' | 'error' }>;

describe.each(engines)('hub: group commit of queued appends ($name engine)', ({ it }) => {
  let engine: EngineHubFixture;
  let hub: TestHub;
  let client: RawHubClient;
  let nextId = 1_000;

  const queued = async (): Promise<number> => (await hub.hub.metrics.appendsQueued.get()).values[0]?.value ?? 0;
  const commits = async (): Promise<{ count: number; sum: number }> => {
    const values = (await hub.hub.metrics.groupCommitAppends.get()).values;
    const count = values.find((value) => value.metricName?.endsWith('_count'))?.value ?? 0;
    const sum = values.find((value) => value.metricName?.endsWith('_sum'))?.value ?? 0;
    return { count, sum };
  };

  /** Send appends without waiting (pipelined on one connection); resolves with their replies in send order. */
  const burst = (messages: readonly Record<string, unknown>[]): Promise<Reply[]> =>
    Promise.all(
      messages.map((message) => {
        const id = nextId++;
        const from = client.messages.length;
        client.send({ type: 'append', ...message, id });
        return client.waitFor((reply) => 'id' in reply && reply.id === id, { from }) as Promise<Reply>;
      }),
    );

  /** Hold a first append of the session in its commit, queue `messages` behind it, then let everything go. */
  const queuedBehindFirst = async (sessionId: string, messages: readonly Record<string, unknown>[]) => {
    const gate = holdNextCommit(engine.store);
    const before = await queued();
    const first = burst([{ sessionId, events: [user('first')] }]);
    await gate.reached;
    const rest = burst(messages);
    await vi.waitFor(async () => expect(await queued()).toBe(before + 1 + messages.length), WAIT);
    gate.open();
    const [firstReply] = await first;
    return { first: firstReply!, rest: await rest };
  };

  it.beforeAll(async ({ engineHub }) => {
    engine = engineHub;
    hub = engineHub.hub;
    client = await RawHubClient.connect(hub.wsUrl);
  });
  afterAll(async () => {
    await client.close();
  });

  it('commits appends queued behind a commit as one group: in order, one ack each, one live batch', async () => {
    const sessionId = 'burst';
    const watcher = await RawHubClient.connect(hub.wsUrl);
    await watcher.request({ type: 'subscribe', sessionId, fromSeq: 0 });
    const commitsBefore = await commits();
    const sizes = [1, 3, 1, 2, 1, 1, 4, 1];
    const messages = sizes.map((size, index) => ({
      sessionId,
      events: range(1, size).map((part) => user(`m${index}.${part}`)),
      idempotencyKey: `k${index}`,
    }));
    const { first, rest } = await queuedBehindFirst(sessionId, messages);
    expect(first).toMatchObject({ type: 'ack', firstSeq: 0, lastSeq: 0 });
    let next = 1;
    for (const [index, reply] of rest.entries()) {
      expect(reply).toMatchObject({ type: 'ack', firstSeq: next, lastSeq: next + sizes[index]! - 1, duplicate: false });
      next += sizes[index]!;
    }
    // The queued appends went to the store together: two commits for nine appends, one commit time for the group.
    const after = await commits();
    expect(after.count - commitsBefore.count).toBe(2);
    expect(after.sum - commitsBefore.sum).toBe(1 + sizes.length);
    expect(new Set(rest.map((reply) => reply.type === 'ack' && reply.time)).size).toBe(1);
    const stored = await engine.store.read(sessionId, 0, 100);
    expect(stored.map((event) => (event.data as { content: string }).content)).toEqual([
      'first',
      ...messages.flatMap((message) => message.events.map((event) => event.data.content)),
    ]);
    await vi.waitFor(() => expect(watcher.seqs(sessionId)).toEqual(range(0, next - 1)), WAIT);
    await watcher.close();
  });

  it('fails an invalid append inside a group alone: the ones before and after it commit', async () => {
    const sessionId = 'invalid-inside';
    const { rest } = await queuedBehindFirst(sessionId, [
      { sessionId, events: [user('a')] },
      { sessionId, events: [user('b'), { type: 'user/message', data: { role: 'user' } }] },
      { sessionId, events: [user('c')] },
    ]);
    expect(rest[0]).toMatchObject({ type: 'ack', firstSeq: 1, lastSeq: 1 });
    expect(rest[1]).toMatchObject({ type: 'error', code: 'INVALID_EVENT' });
    expect(rest[2]).toMatchObject({ type: 'ack', firstSeq: 2, lastSeq: 2 });
    const stored = await engine.store.read(sessionId, 0, 10);
    expect(stored.map((event) => (event.data as { content: string }).content)).toEqual(['first', 'a', 'c']);
  });

  it('commits a key repeated within the queue once and acks the repeat as a duplicate of it', async () => {
    const sessionId = 'repeated-key';
    const { rest } = await queuedBehindFirst(sessionId, [
      { sessionId, events: [user('x')], idempotencyKey: 'same' },
      { sessionId, events: [user('y')] },
      { sessionId, events: [user('x')], idempotencyKey: 'same' },
      { sessionId, events: [user('other')], idempotencyKey: 'same' },
    ]);
    expect(rest[0]).toMatchObject({ type: 'ack', firstSeq: 1, lastSeq: 1, duplicate: false });
    expect(rest[1]).toMatchObject({ type: 'ack', firstSeq: 2, lastSeq: 2, duplicate: false });
    expect(rest[2]).toMatchObject({ type: 'ack', firstSeq: 1, lastSeq: 1, duplicate: true });
    expect(rest[3]).toMatchObject({ type: 'error', code: 'IDEMPOTENCY_MISMATCH' });
    expect((await engine.store.head(sessionId)).headSeq).toBe(2);
  });

  it('checks each queued expectedSeq against the appends before it in the group', async () => {
    const sessionId = 'expected-seq';
    const { rest } = await queuedBehindFirst(sessionId, [
      { sessionId, events: [user('a'), user('b')], expectedSeq: 1 },
      { sessionId, events: [user('c')], expectedSeq: 3 },
      { sessionId, events: [user('stale')], expectedSeq: 3 },
      { sessionId, events: [user('d')], expectedSeq: 4 },
    ]);
    expect(rest[0]).toMatchObject({ type: 'ack', firstSeq: 1, lastSeq: 2 });
    expect(rest[1]).toMatchObject({ type: 'ack', firstSeq: 3, lastSeq: 3 });
    expect(rest[2]).toMatchObject({ type: 'error', code: 'SEQ_CONFLICT' });
    expect(rest[3]).toMatchObject({ type: 'ack', firstSeq: 4, lastSeq: 4 });
  });
});
