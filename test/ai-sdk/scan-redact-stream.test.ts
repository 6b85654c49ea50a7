// `useChat` on a hub with `--secrets redact` (issue #30): the transport's user message holding a secret commits
// with its audit behind it, the agent's AgentWriter (attached to that log) streams a turn whose chunks hold the
// secret too and moves past each audit, and the transport's stream of the turn runs to its end, redacted.
import { readUIMessageStream, type UIMessageChunk } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentWriter } from '../../client/index.ts';
import { HubChatTransport, type HubUIMessage } from '../../client/ai-sdk/index.ts';
import { MemoryStore } from '../../server/index.ts';
import { REDACTED_TEXT, REDACTION_AUDIT_TYPE } from '../../shared/redaction.ts';
import { startHub, type TestHub } from '../helpers/hub.ts';
import { clientPool } from '../helpers/client-pool.ts';

const SECRET = 'sk-proj0123456789abcdefghijKLMN';

describe('HubChatTransport and an AgentWriter on a hub that redacts at append', () => {
  let store: MemoryStore;
  let hub: TestHub;
  const pool = clientPool();

  beforeAll(async () => {
    store = new MemoryStore();
    hub = await startHub({ store, secrets: { mode: 'redact' } });
  });
  afterAll(async () => {
    pool.closeAll();
    await hub.close();
    await store.close();
  });

  it('streams the whole turn, secrets redacted, with no error chunk', async () => {
    const sessionId = 'ai/scan-redact';
    const transport = new HubChatTransport({ client: pool.connect(hub), sessionId });
    const stream = await transport.sendMessages({
      trigger: 'submit-message',
      chatId: sessionId,
      messageId: undefined,
      messages: [{ id: 'm-1', role: 'user', parts: [{ type: 'text', text: `use my key ${SECRET}` }] }],
      abortSignal: undefined,
    });
    const [reading, chunks] = stream.tee();
    const seen: UIMessageChunk[] = [];
    const collected = (async () => {
      const reader = chunks.getReader();
      for (let next = await reader.read(); !next.done; next = await reader.read()) seen.push(next.value);
    })();
    const messages: HubUIMessage[] = [];
    const read = (async () => {
      for await (const message of readUIMessageStream<HubUIMessage>({ stream: reading })) messages.push(message);
    })();

    const writer = await AgentWriter.attach(pool.connect(hub), sessionId);
    expect(writer.nextSeq).toBe(2); // the user message and its audit
    await writer.startTurn();
    await writer.startStep();
    const first = writer.streamChunk(`Using ${SECRET}`);
    void writer.streamChunk(' now.'); // queued behind the append holding the secret, or in it
    await first;
    void writer.commitAssistantMessage({ content: `Using ${SECRET} now.` });
    await writer.endTurn();
    await writer.flush();
    await Promise.all([read, collected]);

    expect(seen.filter((chunk) => chunk.type === 'error')).toEqual([]);
    const text = JSON.stringify(messages.at(-1));
    expect(text).toContain(`Using ${REDACTED_TEXT} now.`);
    expect(text).not.toContain(SECRET);
    const log = await store.read(sessionId, 0, 100);
    expect(log.filter((event) => event.type === REDACTION_AUDIT_TYPE).length).toBeGreaterThanOrEqual(3);
    expect(JSON.stringify(log)).not.toContain(SECRET);
  });
});
