import { afterAll, beforeAll, describe, expect, vi } from 'vitest';
import { AgentWriter, HubClient } from '../../client/index.ts';
import type { HubClientState, SessionEvent } from '../../client/index.ts';
import { MemoryStore } from '../../server/index.ts';
import { deriveMessages, validateLifecycle } from '../../shared/index.ts';
import { startHub, type TestHub } from '../helpers/hub.ts';
import { it, test } from '../helpers/fixtures.ts';

async function writeCalculatorTurn(writer: AgentWriter, question: string): Promise<void> {
  await writer.userMessage(question);
  await writer.startTurn();
  await writer.startStep();
  for (const piece of ['Let me ', 'check.']) void writer.streamChunk(piece);
  await writer.commitAssistantMessage({
    content: 'Let me check.',
    toolCalls: [{ id: `call-${writer.turn}`, name: 'add', arguments: '{"a":1,"b":2}' }],
  });
  await writer.toolCall({ callId: `call-${writer.turn}`, name: 'add', arguments: { a: 1, b: 2 } });
  await writer.toolResult({ callId: `call-${writer.turn}`, content: '3' });
  await writer.endStep();
  await writer.startStep();
  void writer.streamChunk('It is 3.');
  await writer.commitAssistantMessage({ content: 'It is 3.' }, { outputTokens: 4 });
  await writer.endTurn('completed');
}

describe('AgentWriter', () => {
  it('writes a multi-turn session that passes validateLifecycle(complete) and cites chunk seqs', async ({
    memoryHubClient: hub,
  }) => {
    const writer = await AgentWriter.attach(hub.client, 'writer/1');
    await writer.setSystemPrompt('v1');
    await writeCalculatorTurn(writer, 'one plus two?');
    await writeCalculatorTurn(writer, 'and again?');
    await writer.flush();
    const log = await hub.store.read('writer/1', 0, 1000);
    expect(validateLifecycle(log, { complete: true })).toEqual([]);
    expect(log.filter((event) => event.type === 'turn/start').map((event) => event.data)).toEqual([
      { turn: 1 },
      { turn: 2 },
    ]);
    const firstMessage = log.find((event) => event.type === 'assistant/message')!;
    const chunkSeqs = log.filter((event) => event.type === 'assistant/chunk').map((event) => event.seq);
    expect(firstMessage.sourceEventSeqs).toEqual(chunkSeqs.slice(0, 2));
    expect(deriveMessages(log).map((message) => message.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
      'assistant',
      'tool',
      'assistant',
    ]);
  });

  it('continues an existing log: turn numbering, an open turn, and system prompt replacement', async ({
    memoryHubClient: hub,
  }) => {
    const first = await AgentWriter.attach(hub.client, 'writer/2');
    await first.setSystemPrompt('old prompt');
    await writeCalculatorTurn(first, 'q1');
    await first.startTurn();
    await first.startStep();
    await first.toolCall({ callId: 'open-call', name: 'add', arguments: '{}' });
    await first.flush();

    const second = await AgentWriter.attach(hub.client, 'writer/2');
    expect([second.turn, second.turnOpen, second.step, second.stepOpen]).toEqual([2, true, 1, true]);
    await second.toolResult({ callId: 'open-call', content: 'done' });
    await second.endTurn('completed');
    await second.setSystemPrompt('new prompt');
    await writeCalculatorTurn(second, 'q3');
    await expect(second.pruneToolResult('nope', '')).rejects.toMatchObject({ code: 'INVALID_STATE' });
    await second.pruneToolResult('call-3', '[pruned]');
    await second.flush();

    const log = await hub.store.read('writer/2', 0, 1000);
    expect(validateLifecycle(log, { complete: true })).toEqual([]);
    const turns = log.filter((event) => event.type === 'turn/start').map((event) => event.data);
    expect(turns).toEqual([{ turn: 1 }, { turn: 2 }, { turn: 3 }]);
    const messages = deriveMessages(log);
    expect(messages[0]).toEqual({ role: 'system', content: 'new prompt' });
    expect(messages.filter((message) => message.role === 'tool').map((message) => message.content)).toEqual([
      '3',
      'done',
      '[pruned]',
    ]);
    const pruned = log.at(-1)!;
    expect(pruned.surfaceOp).toMatchObject({ op: 'replace' });
    expect(log.find((event) => event.seq === pruned.sourceEventSeqs![0])!.data).toMatchObject({
      message: { toolCallId: 'call-3', content: '3' },
    });
    expect(messages.filter((message) => message.role === 'system')).toHaveLength(1);
  });

  it('rejects misuse with INVALID_STATE and sends nothing', async ({ memoryHubClient: hub }) => {
    const writer = await AgentWriter.attach(hub.client, 'writer/3');
    await expect(writer.startStep()).rejects.toMatchObject({ code: 'INVALID_STATE' });
    await expect(writer.streamChunk('x')).rejects.toMatchObject({ code: 'INVALID_STATE' });
    await expect(writer.endTurn()).rejects.toMatchObject({ code: 'INVALID_STATE' });
    await writer.startTurn();
    await writer.startStep();
    await expect(writer.toolResult({ callId: 'nope', content: '' })).rejects.toMatchObject({ code: 'INVALID_STATE' });
    await writer.toolCall({ callId: 'c', name: 'add', arguments: '{}' });
    await expect(writer.endTurn('completed')).rejects.toMatchObject({ code: 'INVALID_STATE' });
    // Any other reason answers the open call with an error result and closes the step itself.
    await writer.endTurn('aborted');
    await expect(writer.extension('turn/start', {})).rejects.toMatchObject({ code: 'INVALID_STATE' });
    await writer.requestHeader({ config: { model: 'm' } }, 'initial');
    await writer.extension('ui/note', { text: 'shown to humans only' });
    await writer.flush();
    const log = await hub.store.read('writer/3', 0, 100);
    expect(log.map((event) => event.type)).toEqual([
      'turn/start',
      'step/start',
      'tool/call',
      'tool/result',
      'step/end',
      'turn/end',
      'request/header',
      'ui/note',
    ]);
    expect(validateLifecycle(log, { complete: true })).toEqual([]);
  });

  it('a second writer on the same session makes the first fail with SEQ_CONFLICT; later calls reject too', async ({
    memoryHubClient: hub,
  }) => {
    const writer = await AgentWriter.attach(hub.client, 'writer/4');
    await writer.userMessage('hello');
    await hub.client.append('writer/4', { type: 'user/message', data: { role: 'user', content: 'intruder' } });
    await expect(writer.userMessage('again')).rejects.toMatchObject({ code: 'SEQ_CONFLICT' });
    await expect(writer.flush()).rejects.toMatchObject({ code: 'SEQ_CONFLICT' });
    await expect(writer.startTurn()).rejects.toMatchObject({ code: 'SEQ_CONFLICT' });
  });

  it("attaches through the client's own live subscription to the session", async ({ memoryHubClient: hub }) => {
    await hub.client.append('writer/5', { type: 'user/message', data: { role: 'user', content: 'earlier' } });
    const subscription = hub.client.subscribe('writer/5');
    const writer = await AgentWriter.attach(hub.client, 'writer/5');
    expect(writer.nextSeq).toBe(1);
    await writer.startTurn();
    await writer.endTurn('completed');
    await writer.flush();
    await vi.waitFor(() => expect(subscription.lastSeq).toBe(2));
    expect(subscription.state).toBe('live');
    subscription.close();
  });
});

describe('AgentWriter batches within the frame limit', () => {
  const maxFrameBytes = 16 * 1024;
  let store: MemoryStore;
  let hub: TestHub;
  let client: HubClient;
  const states: HubClientState[] = [];

  beforeAll(async () => {
    store = new MemoryStore();
    hub = await startHub({ store, limits: { maxFrameBytes, maxEventBytes: 8 * 1024 } });
    client = new HubClient({ url: hub.wsUrl, maxFrameBytes });
    client.on('state', (next) => states.push(next));
  });
  afterAll(async () => {
    client.close();
    await hub.close();
    await store.close();
  });

  it('calls that together pass maxFrameBytes go out as several appends: all commit, in order', async () => {
    const writer = await AgentWriter.attach(client, 'writer/frames-1');
    // Nothing awaited: every call queues before the first append goes, so they would all make one batch.
    const calls: Promise<SessionEvent>[] = [writer.startTurn(), writer.startStep()];
    for (let n = 0; n < 6; n++) calls.push(writer.toolCall({ callId: `c${n}`, name: 'read', arguments: {} }));
    for (let n = 0; n < 6; n++) calls.push(writer.toolResult({ callId: `c${n}`, content: `${n}:${'r'.repeat(5000)}` }));
    calls.push(writer.endTurn('completed'));
    await writer.flush();
    const events = await Promise.all(calls);
    // endTurn closes the step itself (seq 14), so the turn/end is seq 15.
    expect(events.map((event) => event.seq)).toEqual([...calls.keys()].map((seq) => (seq < 14 ? seq : 15)));
    const log = await store.read('writer/frames-1', 0, 100);
    expect(log.map((event) => event.seq)).toEqual([...log.keys()]);
    expect(log).toHaveLength(16);
    expect(validateLifecycle(log, { complete: true })).toEqual([]);
    const results = log.filter((event) => event.type === 'tool/result');
    expect(results.map((event) => (event.data as { message: { content: string } }).message.content[0])).toEqual([
      '0',
      '1',
      '2',
      '3',
      '4',
      '5',
    ]);
    expect(states).toEqual(['connected']);
  });

  it('an event too big on its own still fails with FRAME_TOO_LARGE; the calls before it commit', async () => {
    const writer = await AgentWriter.attach(client, 'writer/frames-2');
    const small = writer.userMessage('small');
    const big = writer.userMessage('x'.repeat(maxFrameBytes));
    await expect(big).rejects.toMatchObject({ code: 'FRAME_TOO_LARGE', details: { limit: maxFrameBytes } });
    expect((await small).seq).toBe(0);
    await expect(writer.flush()).rejects.toMatchObject({ code: 'FRAME_TOO_LARGE' });
    expect(await store.read('writer/frames-2', 0, 10)).toHaveLength(1);
  });

  it('data that is not lossless JSON rejects that call only (INVALID_JSON), before anything is queued', async () => {
    const writer = await AgentWriter.attach(client, 'writer/frames-3');
    await expect(writer.userMessage({ ratio: Number.NaN })).rejects.toMatchObject({ code: 'INVALID_JSON' });
    expect((await writer.userMessage('fine')).seq).toBe(0);
    await writer.flush();
  });
});

const announcing = test.extend('hubConfig', { scope: 'file' }, { limits: { maxEventsPerAppend: 4 } });

describe('AgentWriter and appends sized to the limits a hub announces', () => {
  const it = announcing;

  it('a writer with the default batch size (100) cuts its appends at the hub’s 4 events: all commit', async ({
    memoryHubClient: fixture,
  }) => {
    const writer = await AgentWriter.attach(fixture.client, 'writer/announced-1');
    expect(fixture.client.maxEventsPerAppend).toBe(4);
    const calls: Promise<SessionEvent>[] = [writer.startTurn(), writer.startStep()];
    for (let n = 0; n < 10; n++) calls.push(writer.streamChunk(`piece ${n} `));
    calls.push(writer.endTurn('completed'));
    await writer.flush();
    await Promise.all(calls);
    const log = await fixture.store.read('writer/announced-1', 0, 100);
    expect(log.map((event) => event.seq)).toEqual([...log.keys()]);
    expect(validateLifecycle(log, { complete: true })).toEqual([]);
    expect(log).toHaveLength(14); // with batches of 100, the hub would have refused them all (BATCH_TOO_LARGE)
  });

  it('an append of more events than the hub announced fails at once with BATCH_TOO_LARGE, nothing sent', async ({
    memoryHubClient: fixture,
  }) => {
    await fixture.client.append('writer/announced-2', { type: 'x/y', data: 0 }); // connected: the limits are known
    const drafts = Array.from({ length: 5 }, (_, n) => ({ type: 'x/y', data: n }));
    await expect(fixture.client.append('writer/announced-2', drafts)).rejects.toMatchObject({
      code: 'BATCH_TOO_LARGE',
      details: { events: 5, limit: 4 },
    });
    expect(fixture.client.pendingAppends).toBe(0);
    expect(await fixture.store.read('writer/announced-2', 0, 10)).toHaveLength(1);
  });
});

/** A memory store whose reads wait until released: a hub that cannot serve a catch-up for now. */
class StalledReads extends MemoryStore {
  release = (): void => undefined;
  readonly #gate = new Promise<void>((resolve) => {
    this.release = resolve;
  });

  override async readStoredPage(sessionId: string, fromSeq: number, limit: number) {
    await this.#gate;
    return super.readStoredPage(sessionId, fromSeq, limit);
  }
}

describe('AgentWriter.attach when the log cannot be read', () => {
  it('rejects with TIMEOUT after timeoutMs and leaves no subscription behind', async () => {
    const store = new StalledReads();
    const hub = await startHub({ store });
    const client = new HubClient({ url: hub.wsUrl });
    try {
      await expect(AgentWriter.attach(client, 'writer/stalled', { timeoutMs: 100 })).rejects.toMatchObject({
        code: 'TIMEOUT',
        sessionId: 'writer/stalled',
      });
      expect(client.subscriptionOf('writer/stalled')).toBeUndefined();
    } finally {
      store.release();
      client.close();
      await hub.close();
      await store.close();
    }
  });
});
