// The SDK's AgentWriter on a hub with `--secrets redact` (issue #30): the audit of a redaction at append takes the
// seq right behind the append's events, so a writer numbering its appends itself (expectedSeq) used to get
// SEQ_CONFLICT on its next append. Through the ack's `trailerEvents` it moves its seqs (and the seqs its queued
// calls cite) past the audit: the stream goes on, exactly once, and means what the agent wrote.
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { AgentWriter, HubClient } from '../../client/index.ts';
import { trailerSeqsOf } from '../../client/committed.ts';
import type { OpenAIChatChunkLike } from '../../client/provider-streams/index.ts';
import { REDACTED_TEXT, REDACTION_AUDIT_TYPE, isRedactionAudit } from '../../shared/redaction.ts';
import { deriveMessages, validateLifecycle, type SessionEvent } from '../../shared/index.ts';
import { storeEngines, type Engine } from '../helpers/engines.ts';
import { test as it } from '../helpers/fixtures.ts';
import { startHub, type TestHub } from '../helpers/hub.ts';
import { WsRelay } from '../client/ws-relay.ts';

const SECRET = 'sk-live0123456789abcdefghijKLMN';

async function* chat(pieces: readonly string[]): AsyncGenerator<OpenAIChatChunkLike> {
  for (const content of pieces) yield { choices: [{ index: 0, delta: { content } }] };
  yield { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] };
}

/** Until the writer's pending append is on the wire (its pump runs in a microtask queued before this one). */
const onTheWire = (): Promise<void> => new Promise((resolve) => queueMicrotask(resolve));

/**
 * An agent's session with `secret` in a user message, a streamed chunk, a tool result and a provider stream; calls
 * queued while an append holding a secret is in flight cite seqs (chunks, a pruned tool result, the system prompt).
 */
async function writeSession(writer: AgentWriter, secret: string): Promise<void> {
  await writer.setSystemPrompt('You are terse.');
  void writer.userMessage(`my key is ${secret}`);
  void writer.startTurn();
  void writer.startStep();
  const first = writer.streamChunk(`use ${secret} `);
  await onTheWire();
  // Queued behind the append holding the secret: the next seq locally is the one its audit takes.
  void writer.streamChunk('then call the tool.');
  void writer.commitAssistantMessage({
    content: `use ${secret} then call the tool.`,
    toolCalls: [{ id: 'c1', name: 'env', arguments: '{}' }],
  });
  void writer.toolCall({ callId: 'c1', name: 'env', arguments: {} });
  void writer.toolResult({ callId: 'c1', content: `OPENAI_API_KEY=${secret}` });
  const ended = writer.endStep();
  await first;
  await onTheWire();
  void writer.pruneToolResult('c1', 'pruned'); // the tool result's seq moved past the first audit
  await ended;
  await writer.startStep();
  const streamed = await writer.streamOpenAIChat(chat(['The key ', `${secret} `, 'works.']), { coalesceMs: 1 });
  expect(streamed.finishReason).toBe('stop');
  await writer.endTurn();
  await writer.setSystemPrompt('Be brief.'); // replaces the prompt at seq 0
  void writer.userMessage(`again ${secret}`);
  await writer.flush();
}

describe.each(storeEngines('writer-redaction:'))('AgentWriter with --secrets redact, $name engine', ({ open }) => {
  let engine: Engine;
  let hub: TestHub;
  let client: HubClient;

  beforeAll(async () => {
    engine = await open();
    hub = await startHub({ store: engine.store, secrets: { mode: 'redact' } });
    client = new HubClient({ url: hub.wsUrl });
  });
  afterAll(async () => {
    client.close();
    await hub.close();
    await engine.store.close();
    await engine.stop();
  });

  const logOf = (sessionId: string): Promise<readonly SessionEvent[]> => engine.store.read(sessionId, 0, 1000);

  it('keeps writing past each audit; the messages are those of the same session written without the secret', async () => {
    const redacted = await AgentWriter.attach(client, 'writer/redacted');
    await writeSession(redacted, SECRET);
    const clean = await AgentWriter.attach(client, 'writer/clean');
    await writeSession(clean, REDACTED_TEXT);

    const log = await logOf('writer/redacted');
    const cleanLog = await logOf('writer/clean');
    expect(JSON.stringify(log)).not.toContain(SECRET);
    const audits = log.filter(isRedactionAudit);
    expect(audits.length).toBeGreaterThanOrEqual(4);
    expect(cleanLog.some((event) => event.type === REDACTION_AUDIT_TYPE)).toBe(false);
    expect(redacted.nextSeq).toBe(log.length);
    expect(validateLifecycle(log, { complete: true })).toEqual([]);
    expect(deriveMessages(log)).toEqual(deriveMessages(cleanLog));
    // Every event of the agent once, in its order: the log without its audits is the clean log, event by event.
    const own = log.filter((event) => event.type !== REDACTION_AUDIT_TYPE);
    expect(own.map(({ type, data }) => ({ type, data }))).toEqual(cleanLog.map(({ type, data }) => ({ type, data })));
    // The seqs the writer cited point at the same events as in the clean log.
    const cited = (events: readonly SessionEvent[]): unknown[] =>
      events
        .filter((event) => event.sourceEventSeqs !== undefined || typeof event.surfaceOp === 'object')
        .map((event) => ({
          sources: (event.sourceEventSeqs ?? []).map((seq) => events[seq]!.data),
          replaced: typeof event.surfaceOp === 'object' ? [events[event.surfaceOp.startSeq]!.data] : [],
        }));
    expect(cited(log)).toEqual(cited(cleanLog));
  });

  it("a retried key's duplicate ack names the audit too (what a writer re-sending after a lost ack gets)", async () => {
    const sessionId = 'writer/duplicate';
    const drafts = [{ type: 'user/message', data: { role: 'user', content: `key ${SECRET}` } }] as const;
    const options = { expectedSeq: 0, idempotencyKey: 'dup-1' };
    const committed = await client.append(sessionId, drafts, options);
    expect(trailerSeqsOf(committed)).toEqual([1]);
    const again = await client.append(sessionId, drafts, options);
    expect(again.map((event) => event.seq)).toEqual([0]);
    expect(trailerSeqsOf(again)).toEqual([1]);
    // A writer attached to the log reads the audit with it: it continues at seq 2.
    const writer = await AgentWriter.attach(client, sessionId);
    expect(writer.nextSeq).toBe(2);
    await writer.userMessage('more');
    const log = await logOf(sessionId);
    expect(log.map((event) => event.type)).toEqual(['user/message', REDACTION_AUDIT_TYPE, 'user/message']);
  });

  it('a writer whose ack was lost gets it again from the retry (duplicate) and goes on past the audit', async () => {
    const relay = await WsRelay.start(hub.wsUrl);
    const viaRelay = new HubClient({ url: relay.wsUrl, reconnect: { initialDelayMs: 1, maxDelayMs: 20 } });
    try {
      const writer = await AgentWriter.attach(viaRelay, 'writer/lost-ack', { events: [] });
      relay.cutOnNextAck = true;
      void writer.userMessage(`my key is ${SECRET}`);
      await onTheWire();
      void writer.userMessage('and more'); // queued behind the append whose ack is lost
      await writer.flush();
      expect(relay.acksCut).toBe(1);
      const log = await logOf('writer/lost-ack');
      expect(log.map((event) => event.type)).toEqual(['user/message', REDACTION_AUDIT_TYPE, 'user/message']);
      expect(writer.nextSeq).toBe(3);
    } finally {
      viaRelay.close();
      await relay.close();
    }
  });

  it('moves past the audit of its recover() append too (a pattern matching the repair text)', async () => {
    const sessionId = 'writer/recover';
    const scanning = await startHub({
      store: engine.store,
      secrets: { mode: 'redact', patterns: ['Tool call interrupted'] },
    });
    const viaScanning = new HubClient({ url: scanning.wsUrl });
    try {
      const crashed = await AgentWriter.attach(viaScanning, sessionId);
      void crashed.userMessage('run it');
      void crashed.startTurn();
      void crashed.startStep();
      void crashed.toolCall({ callId: 'c9', name: 'env', arguments: {} });
      await crashed.flush(); // the turn stays open: its writer "crashed"
      const writer = await AgentWriter.attach(viaScanning, sessionId);
      const repaired = writer.recover();
      await onTheWire();
      void writer.userMessage('after the repair'); // queued behind the repair, whose audit takes its seq
      expect((await repaired).map((event) => event.type)).toEqual(['tool/result', 'step/end', 'turn/end']);
      await writer.flush();
      const log = await logOf(sessionId);
      expect(log.slice(-3).map((event) => event.type)).toEqual(['turn/end', REDACTION_AUDIT_TYPE, 'user/message']);
      expect(writer.nextSeq).toBe(log.length);
      expect(validateLifecycle(log, { complete: true })).toEqual([]);
    } finally {
      viaScanning.close();
      await scanning.close();
    }
  });

  it('an append without a secret has no trailer', async () => {
    const committed = await client.append('writer/plain', { type: 'app/note', data: { text: 'nothing here' } });
    expect(trailerSeqsOf(committed)).toEqual([]);
  });
});
