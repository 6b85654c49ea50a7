import { describe, expect, it } from 'vitest';
import { type SessionEvent } from '../../shared/index.ts';
import { decodeFrame, encodeFrame, encodeTextFrame } from '../../shared/codec.ts';
import { parseServerMessage } from '../../shared/protocol-parse.ts';
import { CatchUpFrame, eventsFrameHead } from '../../server/fanout/events-frame.ts';
import { encodeEventBody } from '../../server/store/codec/event-codec.ts';
import type { ValidatedDraft } from '../../server/store/event-store.ts';
import { MemoryStore } from '../../server/store/memory/memory-store.ts';
import { EncodedEventPage } from '../../server/store/codec/encoded-page.ts';
import { streamEntryParts, type RawStreamEntry } from '../../server/store/redis/redis-entries.ts';

const drafts: ValidatedDraft[] = [
  { type: 'assistant/chunk', data: { turn: 1, step: 1, chunk: { text: 'naïve café ☕ 🚀', i: 2 ** 53 - 1 } } },
  { type: 'user/message', data: { role: 'user', content: 'x' }, surfaceOp: 'append' },
  {
    type: 'system/summary',
    data: { text: 's' },
    surfaceOp: { op: 'replace', startSeq: 0, endSeq: 1 },
    sourceEventSeqs: [0, 1],
  },
];

function storedEntries(firstSeq: number, time: number): RawStreamEntry[] {
  return drafts.map((draft, index) => [
    Buffer.from(`${firstSeq + index}-1`),
    [Buffer.from('e'), encodeEventBody(draft), Buffer.from('t'), Buffer.from(String(time))],
  ]);
}

describe('catch-up events frames', () => {
  it('have the head encodeFrame writes before the events, for any session id', () => {
    for (const sessionId of ['s', 'acme/run-7 ü', 'x'.repeat(31), 'x'.repeat(32), 'é'.repeat(256), '😀'.repeat(100)]) {
      const events: SessionEvent[] = [];
      const whole = Buffer.from(encodeFrame({ type: 'events', sessionId, events }));
      const head = Buffer.from(eventsFrameHead(sessionId));
      expect(Buffer.concat([head, Buffer.from([0x90])]).equals(whole)).toBe(true);
    }
  });

  it('send the bytes and JSON encodeFrame / encodeTextFrame write, from both engines', async () => {
    const store = new MemoryStore();
    const committed = await store.commit({ sessionId: 'séance 1', expectedSeq: 0, events: drafts });
    if (committed.status !== 'committed') throw new Error(committed.status);
    const entries = streamEntryParts('séance 1', 70_000, storedEntries(70_000, 1_767_225_600_123));
    const pages = [
      new EncodedEventPage('séance 1', await store.readStoredPage('séance 1', 0, 10)),
      new EncodedEventPage('séance 1', { epoch: 'epoch', firstSeq: 70_000, ...entries }),
    ];
    for (const page of pages) {
      const frame = new CatchUpFrame('séance 1', page);
      const message = { type: 'events', sessionId: 'séance 1', events: page.events() } as const;
      expect(frame.message).toEqual(message);
      expect(Buffer.from(frame.binary()).equals(Buffer.from(encodeFrame(message)))).toBe(true);
      expect(frame.text()).toBe(encodeTextFrame(message));
      // What a client decodes from the frame: the very events.
      expect(parseServerMessage(decodeFrame(frame.binary()))).toEqual(message);
    }
  });
});
