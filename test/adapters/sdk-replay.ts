// What the SDK stream files share (sdk-streams-openai.test.ts, sdk-streams-anthropic-import.test.ts): the official SDK
// clients, pointed (baseURL) at a local server replaying SSE bodies in the providers' documented formats, streamed into
// a real hub by the AgentWriter; the session's derived messages, converted back with the adapters, are the next
// request (checked on the request the SDK actually sends).
import { afterAll, beforeAll, expect } from 'vitest';
import { AgentWriter } from '../../client/index.ts';
import type { SessionEvent } from '../../client/index.ts';
import { it, type MemoryHubClientFixture } from '../helpers/fixtures.ts';
import { startReplayServer, type ReplayServer } from './replay-server.ts';

/** The hub and replay server of one test file, and the steps its tests share. */
export interface SdkReplay {
  /** The file's memory hub and its client (the `memoryHubClient` fixture). */
  readonly hub: MemoryHubClientFixture;
  /** The file's replay server: the SDKs' baseURL. */
  readonly server: ReplayServer;
  /** The writer's session log, after a flush. */
  logOf(writer: AgentWriter): Promise<readonly SessionEvent[]>;
  /** A writer on a fresh session with a system prompt, a user question, and the first step open. */
  openSession(sessionId: string, question: string): Promise<AgentWriter>;
}

/**
 * Sets up the calling file's hub and replay server (hooks of the file, so call it at its top level) and returns them
 * with the shared steps; `hub` and `server` are there from the first test on.
 */
export function useSdkReplay(): SdkReplay {
  let hub: MemoryHubClientFixture | undefined;
  let server: ReplayServer | undefined;
  it.beforeAll(({ memoryHubClient }) => {
    hub = memoryHubClient;
  });
  beforeAll(async () => {
    server = await startReplayServer();
  });
  afterAll(async () => {
    await server?.close();
  });
  const replay: SdkReplay = {
    get hub() {
      if (hub === undefined) throw new Error('the hub is set up in beforeAll: use it inside a test');
      return hub;
    },
    get server() {
      if (server === undefined) throw new Error('the replay server is started in beforeAll: use it inside a test');
      return server;
    },
    async logOf(writer) {
      await writer.flush();
      return replay.hub.store.read(writer.sessionId, 0, 10_000);
    },
    async openSession(sessionId, question) {
      const writer = await AgentWriter.attach(replay.hub.client, sessionId);
      void writer.setSystemPrompt('You are a calculator.');
      void writer.startTurn();
      void writer.userMessage(question);
      void writer.startStep();
      return writer;
    },
  };
  return replay;
}

/** Each assistant message cites exactly the chunks of its step, and they add up to its text. */
export function expectMessagesCiteTheirChunks(log: readonly SessionEvent[]): void {
  let chunks: SessionEvent[] = [];
  for (const event of log) {
    if (event.type === 'assistant/chunk') chunks.push(event);
    if (event.type !== 'assistant/message') continue;
    expect(event.sourceEventSeqs ?? []).toEqual(chunks.map((chunk) => chunk.seq));
    const streamedText = chunks
      .map((chunk) => (chunk.data as { chunk: { type: string; text?: string } }).chunk)
      .filter((chunk) => chunk.type === 'text-delta')
      .map((chunk) => chunk.text)
      .join('');
    const content = (event.data as { message: { content: { type: string; text?: string }[] } }).message.content;
    const text = content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
    expect(streamedText).toBe(text);
    chunks = [];
  }
}
