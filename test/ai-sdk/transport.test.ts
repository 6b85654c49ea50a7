import { readUIMessageStream, type UIMessageChunk } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HubChatTransport, type HubUIMessage } from '../../client/ai-sdk/index.ts';
import { HubClient } from '../../client/index.ts';
import { MemoryStore } from '../../server/index.ts';
import { startChatAgent } from '../../examples/react-chat/agent.ts';
import { startHub, type TestHub } from '../helpers/hub.ts';

const userMessage = (id: string, text: string): HubUIMessage => ({ id, role: 'user', parts: [{ type: 'text', text }] });

async function read(stream: ReadableStream<UIMessageChunk>, onMessage?: (message: HubUIMessage) => void) {
  let last: HubUIMessage | undefined;
  for await (const message of readUIMessageStream<HubUIMessage>({ stream, terminateOnError: true })) {
    last = message;
    onMessage?.(message);
  }
  return last!;
}

const textOf = (message: HubUIMessage) => message.parts.map((part) => (part.type === 'text' ? part.text : '')).join('');

function send(transport: HubChatTransport, message: HubUIMessage, abortSignal?: AbortSignal) {
  return transport.sendMessages({
    trigger: 'submit-message',
    chatId: transport.sessionId,
    messageId: undefined,
    messages: [message],
    abortSignal,
  });
}

describe('HubChatTransport against a real hub and agent', () => {
  let store: MemoryStore;
  let hub: TestHub;
  const clients: HubClient[] = [];
  const agents: (() => void)[] = [];
  const newClient = () => {
    const client = new HubClient({ url: hub.wsUrl });
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    store = new MemoryStore();
    hub = await startHub({ store });
  });
  afterAll(async () => {
    for (const stop of agents) stop();
    for (const client of clients) client.close();
    await hub?.close();
    await store?.close();
  });

  it('sends a user message once per UI message id and streams the reply turn', async () => {
    const sessionId = 'ai/send';
    agents.push(startChatAgent({ url: hub.wsUrl, sessionId, wordDelayMs: 1, model: (q) => ['You ', 'said: ', q] }));
    const transport = new HubChatTransport({ client: newClient(), sessionId });
    const reply = await read(await send(transport, userMessage('m-1', 'hello')));
    expect(reply.id).toBe('turn-1');
    expect(textOf(reply)).toBe('You said: hello');
    expect(reply.metadata).toEqual({ turn: 1, status: 'completed' });

    // The same UI message again (a retry): not appended twice; its reply is the same turn.
    const again = await read(await send(transport, userMessage('m-1', 'hello')));
    expect(textOf(again)).toBe('You said: hello');
    const users = (await store.read(sessionId, 0, 1000)).filter((event) => event.type === 'user/message');
    expect(users.map((event) => event.data)).toEqual([{ role: 'user', content: 'hello', id: 'm-1' }]);
    expect(await transport.reconnectToStream({ chatId: sessionId })).toBeNull();
  });

  it('resumes an open turn in another client from its start: the same reply, no gap, no duplicate', async () => {
    const sessionId = 'ai/resume';
    const words = Array.from({ length: 60 }, (_, index) => `w${index} `);
    agents.push(startChatAgent({ url: hub.wsUrl, sessionId, wordDelayMs: 5, model: () => words }));
    const sender = new HubChatTransport({ client: newClient(), sessionId });
    let resumed: Promise<HubUIMessage> | undefined;
    const late = new HubChatTransport({ client: newClient(), sessionId });
    const full = await read(await send(sender, userMessage('m-1', 'go')), (message) => {
      if (resumed === undefined && textOf(message).split(' ').length > 10) {
        resumed = late.reconnectToStream({ chatId: sessionId }).then((stream) => read(stream!));
      }
    });
    expect(resumed).toBeDefined();
    const other = await resumed!;
    expect(textOf(full)).toBe(words.join(''));
    expect(textOf(other)).toBe(words.join(''));
    expect(other.metadata).toEqual({ turn: 1, status: 'completed' });
  });

  it('aborting a stream stops the turn for everyone: the log closes it interrupted and the agent stops', async () => {
    const sessionId = 'ai/stop';
    const words = Array.from({ length: 2000 }, (_, index) => `w${index} `);
    agents.push(startChatAgent({ url: hub.wsUrl, sessionId, wordDelayMs: 5, model: () => words }));
    const sender = new HubChatTransport({ client: newClient(), sessionId });
    const watcher = new HubChatTransport({ client: newClient(), sessionId });
    const abort = new AbortController();
    let watched: Promise<HubUIMessage> | undefined;
    await read(await send(sender, userMessage('m-1', 'go'), abort.signal), (message) => {
      if (watched === undefined && textOf(message).length > 0) {
        watched = watcher.reconnectToStream({ chatId: sessionId }).then((stream) => read(stream!));
      }
      if (textOf(message).split(' ').length > 20) abort.abort();
    }).catch(() => undefined); // the SDK's reader ends with the aborted stream
    const seen = await watched!;
    expect(seen.metadata).toEqual({ turn: 1, status: 'interrupted' });
    const log = await store.read(sessionId, 0, 10_000);
    const end = log.find((event) => event.type === 'turn/end')!;
    expect(end.data).toEqual({ turn: 1, reason: { kind: 'interrupted' } });
    expect(end.seq).toBe(log.length - 1); // nothing after it: the agent stopped streaming
    expect(log.filter((event) => event.type === 'assistant/chunk').length).toBeLessThan(words.length);
    // Another stop finds no open turn.
    expect(await watcher.stop()).toBe(false);
  });

  it('refuses what it cannot send: regeneration, and a UI message id too long for an idempotency key', async () => {
    const transport = new HubChatTransport({ client: newClient(), sessionId: 'ai/refuse' });
    await expect(
      transport.sendMessages({
        trigger: 'regenerate-message',
        chatId: 'ai/refuse',
        messageId: 'x',
        messages: [userMessage('m-1', 'hi')],
        abortSignal: undefined,
      }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(send(transport, userMessage('x'.repeat(201), 'hi'))).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    expect(await store.read('ai/refuse', 0, 10)).toEqual([]);
  });
});
