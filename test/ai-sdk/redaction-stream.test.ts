// A redaction while `useChat` streams a turn (docs/client.md#redaction): the transport's stream of the turn in
// flight ends with an error chunk naming the reset (the chunks it sent cannot be taken back), and a stream asked for
// afterwards reads the redacted log.
import { readUIMessageStream, type UIMessageChunk } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HubChatTransport, type HubUIMessage } from '../../client/ai-sdk/index.ts';
import { MemoryStore } from '../../server/index.ts';
import { REDACTED_TEXT } from '../../shared/redaction.ts';
import { startHub, type TestHub } from '../helpers/hub.ts';
import { clientPool } from '../helpers/client-pool.ts';

const SECRET = 'hunter2-is-my-password';

describe('HubChatTransport and a redaction', () => {
  let store: MemoryStore;
  let hub: TestHub;
  const pool = clientPool();

  beforeAll(async () => {
    store = new MemoryStore();
    hub = await startHub({ store });
  });
  afterAll(async () => {
    pool.closeAll();
    await hub.close();
    await store.close();
  });

  it('ends the stream of the turn in flight with a reset error chunk', async () => {
    const sessionId = 'ai/redact-during-turn';
    const transport = new HubChatTransport({ client: pool.connect(hub), sessionId });
    const stream = await transport.sendMessages({
      trigger: 'submit-message',
      chatId: sessionId,
      messageId: undefined,
      messages: [{ id: 'm-1', role: 'user', parts: [{ type: 'text', text: `my password is ${SECRET}` }] }],
      abortSignal: undefined,
    });
    const agent = pool.connect(hub);
    await agent.append(sessionId, [
      { type: 'turn/start', data: { turn: 1 } },
      { type: 'step/start', data: { turn: 1, step: 1 } },
      { type: 'assistant/chunk', data: { turn: 1, step: 1, chunk: 'Noted' } },
    ]);

    const chunks: UIMessageChunk[] = [];
    const reader = stream.getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      chunks.push(value);
      if (value.type === 'text-delta') await agent.redact(sessionId, [0], 'a password');
    }
    expect(chunks.filter((chunk) => chunk.type === 'text-delta')).toHaveLength(1);
    expect(chunks.at(-1)).toEqual({ type: 'error', errorText: `session ${sessionId} was replaced (reset)` });

    // Asked again, the open turn is replayed from the redacted log.
    await agent.append(sessionId, { type: 'assistant/chunk', data: { turn: 1, step: 1, chunk: ' it' } });
    const resumed = await transport.reconnectToStream({ chatId: sessionId });
    const parts: HubUIMessage[] = [];
    const replay = readUIMessageStream<HubUIMessage>({ stream: resumed! });
    await agent.append(sessionId, [
      { type: 'step/end', data: { turn: 1, step: 1 } },
      { type: 'turn/end', data: { turn: 1, reason: { kind: 'completed' } } },
    ]);
    for await (const message of replay) parts.push(message);
    expect(JSON.stringify(parts.at(-1))).toContain('Noted it');
    expect(JSON.stringify(await store.read(sessionId, 0, 100))).not.toContain(SECRET);
    expect((await store.read(sessionId, 0, 1))[0]!.data).toMatchObject({ content: REDACTED_TEXT });
  });
});
