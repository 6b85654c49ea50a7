import fc from 'fast-check';
import { afterAll, describe, expect } from 'vitest';
import { Session, freezeJson, jsonEquals, type EventDraft, type JsonValue } from '../../shared/index.ts';
import type { EventStore } from '../../server/store/event-store.ts';
import { MemoryStore } from '../../server/store/memory/memory-store.ts';
import { test as it } from '../helpers/fixtures.ts';

/** Any value the core accepts as lossless JSON, frozen by it (undefined when the core refuses it). */
function accepted(value: unknown): JsonValue | undefined {
  try {
    return freezeJson(value);
  } catch {
    return undefined;
  }
}

describe('stores and the shared core together', () => {
  const memoryStore = new MemoryStore();
  let stores: EventStore[];

  it.beforeAll(({ redisStore }) => {
    stores = [memoryStore, redisStore];
  });
  afterAll(() => memoryStore.close());

  it('stores drafts checked by Session.check so that Session.fromLog accepts what is read back', async () => {
    const drafts: EventDraft[] = [
      { type: 'turn/start', data: { turn: 1 } },
      { type: 'system/message', data: { content: 'be brief' } },
      { type: 'user/message', data: { role: 'user', content: 'hi 😀' } },
      { type: 'step/start', data: { turn: 1, step: 1 } },
      { type: 'assistant/chunk', data: { turn: 1, step: 1, chunk: { text: 'hel' } } },
      {
        type: 'assistant/message',
        data: { turn: 1, step: 1, message: { role: 'assistant', content: 'hello' }, usage: { in: 3, out: 1.5 } },
        sourceEventSeqs: [4],
      },
      { type: 'step/end', data: { turn: 1, step: 1 } },
      { type: 'turn/end', data: { turn: 1, reason: { kind: 'completed' } } },
      {
        type: 'system/message',
        data: { content: 'be kind' },
        surfaceOp: { op: 'replace', startSeq: 1, endSeq: 1 },
        sourceEventSeqs: [1],
      },
      { type: 'custom/thing', data: { anything: [1, { goes: null }] } },
    ];
    for (const store of stores) {
      const session = new Session();
      const validated = session.check(drafts);
      const result = await store.commit({ sessionId: 'core', expectedSeq: 0, events: validated });
      expect(result.status).toBe('committed');
      const stored = await store.read('core', 0, 100);
      const replayed = Session.fromLog(stored);
      expect(replayed.events).toEqual(stored);
      expect(replayed.deriveMessages()).toEqual([
        { role: 'system', content: 'be kind' },
        { role: 'user', content: 'hi 😀' },
        { role: 'assistant', content: 'hello' },
      ]);
    }
  });

  it('round-trips any value the core accepts, exactly (property)', async () => {
    let seq = 0;
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (raw) => {
        const data = accepted(raw);
        fc.pre(data !== undefined);
        for (const store of stores) {
          await store.commit({
            sessionId: 'property',
            expectedSeq: seq,
            events: [{ type: 'test/value', data: data! }],
          });
          const [event] = await store.read('property', seq, 1);
          const stored: JsonValue = event!.data as JsonValue;
          expect(jsonEquals(stored, data!)).toBe(true);
        }
        seq++;
      }),
      { numRuns: 150 },
    );
  });
});
