// Scanning at append with `--secrets redact` (issue #30): the audit/redaction event is committed in the same commit
// as the redacted events, on both engines: one store notification holds both, a retried key commits no second
// audit, and a node SIGKILLed right after the commit leaves both or neither.
import { afterAll, beforeAll, describe, expect, vi } from 'vitest';
import type { CommittedBatch, EventStore } from '../../server/store/event-store.ts';
import { REDACTED_TEXT, REDACTION_AUDIT_TYPE, isRedactionAudit } from '../../shared/redaction.ts';
import type { SessionEvent } from '../../shared/index.ts';
import { storeEngines, type Engine } from '../helpers/engines.ts';
import { test as it } from '../helpers/fixtures.ts';
import { startHub, type TestHub } from '../helpers/hub.ts';
import { HubProcess } from '../helpers/hub-process.ts';

const AWS = 'AKIAIOSFODNN7EXAMPLE';
const WAIT = { timeout: 10_000, interval: 10 };

interface AppendReply {
  readonly firstSeq: number;
  readonly lastSeq: number;
  readonly duplicate: boolean;
}

async function post(hub: { url: string }, sessionId: string, body: object): Promise<AppendReply> {
  const response = await fetch(`${hub.url}/v1/sessions/${encodeURIComponent(sessionId)}/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.status).toBeLessThan(300);
  return (await response.json()) as AppendReply;
}

const note = (text: string) => ({ type: 'app/note', data: { text } });

/** Every batch the store notifies for `sessionId` (any node's commits). */
function observe(store: EventStore, sessionId: string): { batches: CommittedBatch[]; stop: () => void } {
  const batches: CommittedBatch[] = [];
  const stop = store.watch(sessionId, { onCommitted: (batch) => batches.push(batch), onResync: () => undefined });
  return { batches, stop };
}

/** Each audit of `log` follows right behind the events it names (the last of them is the seq before it). */
function auditsFollowTheirEvents(log: readonly SessionEvent[]): void {
  for (const event of log) {
    if (!isRedactionAudit(event)) continue;
    const seqs = event.data.seqs;
    expect(Math.max(...seqs)).toBeLessThan(event.seq);
    for (const seq of seqs) expect(JSON.stringify(log[seq]!.data)).toContain(REDACTED_TEXT);
  }
}

describe.each(storeEngines('scan-audit:'))('redact at append on the $name engine', ({ open }) => {
  let engine: Engine;
  let hub: TestHub;

  beforeAll(async () => {
    engine = await open();
    hub = await startHub({ store: engine.store, secrets: { mode: 'redact' } });
  });
  afterAll(async () => {
    await hub.close();
    await engine.store.close();
    await engine.stop();
  });

  it('commits the audit with the events (one notification), acks the own seqs, and a retried key adds nothing', async () => {
    const sessionId = 'scan/one-commit';
    const watcher = observe(engine.store, sessionId);
    const body = { events: [note('clean'), note(`key ${AWS}`), note('clean too')], idempotencyKey: 'k-1' };
    const reply = await post(hub, sessionId, body);
    expect(reply).toMatchObject({ firstSeq: 0, lastSeq: 2, duplicate: false });

    await vi.waitFor(() => expect(watcher.batches).toHaveLength(1), WAIT);
    const [batch] = watcher.batches;
    expect(batch!.events.map((event) => event.type)).toEqual([
      'app/note',
      'app/note',
      'app/note',
      REDACTION_AUDIT_TYPE,
    ]);
    expect(batch!.events[3]).toMatchObject({ seq: 3, data: { by: 'secret-scan', seqs: [1] } });
    expect(new Set(batch!.events.map((event) => event.time)).size).toBe(1);

    // The retry is the same (scanned) batch: a duplicate with the same seqs, and no second audit.
    expect(await post(hub, sessionId, body)).toMatchObject({ firstSeq: 0, lastSeq: 2, duplicate: true });
    await post(hub, sessionId, { events: [note('after')] });
    await vi.waitFor(() => expect(watcher.batches).toHaveLength(2), WAIT);
    watcher.stop();
    const log = await engine.store.read(sessionId, 0, 100);
    expect(log.map((event) => event.type)).toEqual([...batch!.events.map((event) => event.type), 'app/note']);
    expect(JSON.stringify(log)).not.toContain(AWS);
  });

  it('gives each append of a group its audit right behind its own events', async () => {
    const sessionId = 'scan/group';
    await post(hub, sessionId, { events: [note('first')] });
    const replies = await Promise.all(
      [0, 1, 2, 3].map((index) =>
        post(hub, sessionId, {
          events: index % 2 === 0 ? [note(`a ${AWS}`), note('b')] : [note('clean'), note(`c ${AWS}`)],
          idempotencyKey: `g-${index}`,
        }),
      ),
    );
    const log = await engine.store.read(sessionId, 0, 100);
    for (const [index, reply] of replies.entries()) {
      expect(reply.lastSeq - reply.firstSeq).toBe(1);
      const audit = log[reply.lastSeq + 1]!;
      expect(audit.type).toBe(REDACTION_AUDIT_TYPE);
      expect(audit.data).toMatchObject({ seqs: [reply.firstSeq + (index % 2)] });
    }
    expect(log).toHaveLength(1 + 4 * 3);
    auditsFollowTheirEvents(log);
  });
});

describe('a redacting node SIGKILLed right after its commit', () => {
  it('leaves the events with their audit', async ({ redis, openRedisStore }) => {
    const keyPrefix = 'scan-kill:';
    const store = await openRedisStore({ keyPrefix });
    const node = await HubProcess.start(['--redis', redis.url, '--key-prefix', keyPrefix, '--secrets', 'redact']);
    const sessionId = 'scan/kill';
    let killed: Promise<void> | undefined;
    // Killed on the store's first notice of the session: the node has just committed, and not yet answered.
    const stop = store.watch(sessionId, {
      onCommitted: () => {
        killed ??= node.kill();
      },
      onResync: () => undefined,
    });
    const reply = post(node, sessionId, { events: [note(`key ${AWS}`), note('clean')] }).catch(
      (error: unknown) => error,
    );
    await vi.waitFor(() => expect(killed).toBeDefined(), WAIT);
    await killed;
    await reply;
    stop();
    const log = await store.read(sessionId, 0, 100);
    expect(log.map((event) => event.type)).toEqual(['app/note', 'app/note', REDACTION_AUDIT_TYPE]);
    expect(log[2]!.data).toMatchObject({ by: 'secret-scan', seqs: [0] });
  });
});
