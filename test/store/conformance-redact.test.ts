// The EventStore conformance suite, redaction: what `store.redactions` does (docs/storage.md#redaction). Every
// engine passes it, on each backend of conformance-backends.ts, with two store instances ("hub nodes") on one backend.
import { randomUUID } from 'node:crypto';
import { describe, expect, vi } from 'vitest';
import { MessageProjector, Session, type SessionEvent } from '../../shared/index.ts';
import { REDACTED_TEXT, REDACTION_AUDIT_TYPE, redactEventData } from '../../shared/redaction.ts';
import type { EventStore, ValidatedDraft } from '../../server/store/event-store.ts';
import { readEventPage } from '../../server/store/codec/stored-events.ts';
import { clusterBackend, memoryBackend, redisBackend, type BackendTest } from './conformance-backends.ts';
import { committed, recorder, WAIT } from './conformance-helpers.ts';

const SECRET = 'sk-live-7f3a9c2e1b';

/** A small valid turn whose tool output and tool arguments carry the secret (seqs 0..8). */
const turn: ValidatedDraft[] = [
  { type: 'turn/start', data: { turn: 1 } },
  { type: 'user/message', data: { role: 'user', content: `my key is ${SECRET}` }, surfaceOp: 'append' },
  { type: 'step/start', data: { turn: 1, step: 1 } },
  {
    type: 'assistant/message',
    data: {
      turn: 1,
      step: 1,
      message: {
        role: 'assistant',
        content: 'calling',
        toolCalls: [{ id: 'c1', name: 'env', arguments: `{"k":"${SECRET}"}` }],
      },
    },
    surfaceOp: 'append',
  },
  { type: 'tool/call', data: { turn: 1, step: 1, callId: 'c1', name: 'env', arguments: `{"k":"${SECRET}"}` } },
  {
    type: 'tool/result',
    data: {
      turn: 1,
      step: 1,
      message: { role: 'tool', toolCallId: 'c1', toolName: 'env', content: `KEY=${SECRET}`, isError: false },
    },
    surfaceOp: 'append',
  },
  { type: 'step/end', data: { turn: 1, step: 1 } },
  { type: 'turn/end', data: { turn: 1, reason: { kind: 'completed' } } },
  { type: 'app/note', data: { note: SECRET } },
];

async function all(store: EventStore, sessionId: string): Promise<readonly SessionEvent[]> {
  return store.read(sessionId, 0, 1000);
}

function describeRedactConformance(name: string, it: BackendTest): void {
  describe(`EventStore conformance, redaction: ${name}`, () => {
    let a: EventStore;
    let b: EventStore;
    const newSession = (): string => `redact-${randomUUID()}`;
    const by = 'admin';

    it.beforeAll(async ({ backend }) => {
      a = await backend.open();
      b = await backend.open();
    });

    it('replaces the data of the named events, keeps their envelopes, appends the audit and changes the epoch', async () => {
      const sessionId = newSession();
      const first = await a.commit({ sessionId, expectedSeq: 0, events: turn });
      const before = committed(first);
      const result = await a.redactions.redact({ sessionId, seqs: [5, 1, 4, 8, 3, 5], reason: 'leaked key', by });
      expect(result).toMatchObject({ status: 'redacted', seqs: [1, 3, 4, 5, 8], unchanged: [], cold: [], auditSeq: 9 });
      if (result.status !== 'redacted') throw new Error('not redacted');
      expect(result.epoch).not.toBe(first.epoch);
      const after = await all(b, sessionId);
      expect(after).toHaveLength(10);
      for (const event of before) {
        const now = after[event.seq]!;
        expect({ ...now, data: null }).toEqual({ ...event, data: null }); // seq, type, time, surface fields kept
        const expected = [1, 3, 4, 5, 8].includes(event.seq) ? redactEventData(event.type, event.data) : event.data;
        expect(now.data).toEqual(expected);
      }
      expect(JSON.stringify(after)).not.toContain(SECRET);
      const audit = after[9]!;
      expect(audit.type).toBe(REDACTION_AUDIT_TYPE);
      expect(audit.data).toEqual({
        by,
        reason: 'leaked key',
        seqs: [1, 3, 4, 5, 8],
        digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      });
      // The redacted log is still a valid log, and its messages say the marker.
      const session = Session.fromLog(after);
      expect(JSON.stringify(session.deriveMessages())).toContain(REDACTED_TEXT);
      // Pages read in the new epoch hold the placeholders too.
      const page = await readEventPage(b, sessionId, 0, 100);
      expect(page.epoch).toBe(result.epoch);
      expect(JSON.stringify(page.events)).not.toContain(SECRET);
      expect(await b.head(sessionId)).toEqual({ epoch: result.epoch, headSeq: 9 });
    });

    it('is idempotent: a retried request changes nothing and appends no second audit', async () => {
      const sessionId = newSession();
      committed(await a.commit({ sessionId, expectedSeq: 0, events: turn }));
      const once = await a.redactions.redact({ sessionId, seqs: [5], reason: 'r', by });
      const again = await b.redactions.redact({ sessionId, seqs: [5], reason: 'r', by });
      if (once.status !== 'redacted') throw new Error('not redacted');
      expect(again).toEqual({
        status: 'redacted',
        epoch: once.epoch,
        seqs: [],
        unchanged: [5],
        cold: [],
        auditSeq: undefined,
      });
      expect((await a.head(sessionId)).headSeq).toBe(9);
      // Events with nothing to remove count as unchanged.
      const structure = await a.redactions.redact({ sessionId, seqs: [0, 2], reason: 'r', by });
      expect(structure).toMatchObject({ seqs: [], unchanged: [0, 2], auditSeq: undefined });
    });

    it('rewrites a log from its first entry on, and appends go on after it', async () => {
      const sessionId = newSession();
      const first = committed(await a.commit({ sessionId, expectedSeq: 0, events: turn.slice(1, 2) }));
      expect(first).toHaveLength(1);
      const result = await b.redactions.redact({ sessionId, seqs: [0], reason: 'r', by });
      expect(result).toMatchObject({ status: 'redacted', seqs: [0], auditSeq: 1 });
      const head = await a.head(sessionId);
      expect(head.headSeq).toBe(1);
      const next = await a.commit({ sessionId, expectedSeq: 2, expectedEpoch: head.epoch, events: [turn[8]!] });
      expect(next.status).toBe('committed');
      const log = await all(b, sessionId);
      expect(log.map((event) => [event.seq, event.type])).toEqual([
        [0, 'user/message'],
        [1, REDACTION_AUDIT_TYPE],
        [2, 'app/note'],
      ]);
      expect(log[0]!.data).toEqual({ role: 'user', content: REDACTED_TEXT });
    });

    it('refuses unknown and future seqs, a foreign epoch and bad requests, changing nothing', async () => {
      const sessionId = newSession();
      const first = await a.commit({ sessionId, expectedSeq: 0, events: turn });
      const before = await all(a, sessionId);
      expect(await a.redactions.redact({ sessionId, seqs: [1, 9, 50], reason: 'r', by })).toEqual({
        status: 'out-of-range',
        epoch: first.epoch,
        headSeq: 8,
        seqs: [9, 50],
      });
      expect(await a.redactions.redact({ sessionId: newSession(), seqs: [0], reason: 'r', by })).toEqual({
        status: 'out-of-range',
        epoch: '',
        headSeq: -1,
        seqs: [0],
      });
      expect(await a.redactions.redact({ sessionId, seqs: [1], reason: 'r', by, expectedEpoch: 'other' })).toEqual({
        status: 'conflict',
        epoch: first.epoch,
      });
      const bad = [
        { sessionId, seqs: [], reason: 'r', by },
        { sessionId, seqs: Array.from({ length: 1_000_000 }, (_, index) => index), reason: 'r', by },
        { sessionId, seqs: [1], reason: 'x'.repeat(1024 * 1024), by },
        { sessionId, seqs: [1], reason: '', by },
        { sessionId, seqs: [-1], reason: 'r', by },
        { sessionId, seqs: [1.5], reason: 'r', by },
        { sessionId: '{bad}', seqs: [1], reason: 'r', by },
      ];
      for (const request of bad)
        await expect(a.redactions.redact(request)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
      expect(await all(b, sessionId)).toEqual(before);
      expect((await b.head(sessionId)).epoch).toBe(first.epoch);
    });

    it('drops the snapshot, fences a snapshot built before it, and tells every watcher to re-read', async () => {
      const sessionId = newSession();
      const first = await a.commit({ sessionId, expectedSeq: 0, events: turn });
      const events = committed(first);
      const projector = new MessageProjector();
      projector.applyAll(events);
      const snapshot = { epoch: first.epoch, seq: 8, state: projector.exportState() };
      expect(await a.snapshots.put(sessionId, snapshot)).toBe('written');
      const watcher = recorder();
      const stop = b.watch(sessionId, watcher);
      await b.head(sessionId); // notifications flow from here on
      const result = await a.redactions.redact({ sessionId, seqs: [5], reason: 'r', by });
      expect(result.status).toBe('redacted');
      await vi.waitFor(() => expect(watcher.resyncs).toBeGreaterThan(0), WAIT);
      stop();
      expect(await b.snapshots.get(sessionId)).toMatchObject({ status: 'none', reason: 'missing' });
      // A build that read the old log (racing the redaction) cannot store its snapshot afterwards.
      expect(await b.snapshots.put(sessionId, snapshot)).toBe('stale');
      // A commit positioned in the old epoch conflicts (its validation state is void); in the new one it goes on.
      const stale = await a.commit({ sessionId, expectedSeq: 10, expectedEpoch: first.epoch, events: [turn[8]!] });
      expect(stale.status).toBe('conflict');
      if (result.status !== 'redacted') throw new Error('not redacted');
      const next = await b.commit({ sessionId, expectedSeq: 10, expectedEpoch: result.epoch, events: [turn[8]!] });
      expect(next.status).toBe('committed');
    });

    it('rewrites only what is named among racing appends from another node: all of them or none', async () => {
      const sessionId = newSession();
      committed(await a.commit({ sessionId, expectedSeq: 0, events: turn }));
      let seq = 9;
      let appending = true;
      const appends = (async () => {
        while (appending) {
          const head = await b.head(sessionId);
          const result = await b.commit({
            sessionId,
            expectedSeq: head.headSeq + 1,
            events: [{ type: 'app/note', data: { n: seq } }],
          });
          if (result.status === 'committed') seq++;
        }
      })();
      const results = [];
      for (const target of [1, 3, 4, 5, 8]) {
        results.push(await a.redactions.redact({ sessionId, seqs: [target], reason: 'race', by }));
      }
      appending = false;
      await appends;
      expect(results.every((result) => result.status === 'redacted' && result.seqs.length === 1)).toBe(true);
      const log = await all(a, sessionId);
      expect(log.map((event) => event.seq)).toEqual(log.map((_, index) => index));
      expect(JSON.stringify(log)).not.toContain(SECRET);
      const audits = log.filter((event) => event.type === REDACTION_AUDIT_TYPE);
      expect(audits.map((event) => (event.data as { seqs: number[] }).seqs)).toEqual([[1], [3], [4], [5], [8]]);
      expect(log.filter((event) => event.type === 'app/note').length).toBeGreaterThanOrEqual(1);
    });
  });
}

describeRedactConformance('memory', memoryBackend);
describeRedactConformance('redis', redisBackend);
describeRedactConformance('redis cluster', clusterBackend);
