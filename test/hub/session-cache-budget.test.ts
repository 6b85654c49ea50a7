import { afterAll, describe, expect, it } from 'vitest';
import { normalizeDraft, type EventDraft } from '../../shared/index.ts';
import { SessionCache } from '../../server/append/session-cache.ts';
import { createLogger } from '../../server/logger.ts';
import { HubMetrics } from '../../server/metrics.ts';
import { MemoryStore } from '../../server/store/memory/memory-store.ts';
import { startHub } from '../helpers/hub.ts';
import { storeReadLimits } from '../../server/limits/store-reads.ts';

const big = 'x'.repeat(20_000);
/** One step of a large cold session: a call and its 20 kB result, then a 20 kB user message. */
function step(turn: number): EventDraft[] {
  const ref = { turn, step: 1 };
  return [
    { type: 'turn/start', data: { turn } },
    { type: 'step/start', data: ref },
    { type: 'tool/call', data: { ...ref, callId: `c${turn}`, name: 'read', arguments: '{}' } },
    {
      type: 'tool/result',
      data: {
        ...ref,
        message: { role: 'tool', toolCallId: `c${turn}`, toolName: 'read', content: big, isError: false },
      },
    },
    { type: 'step/end', data: ref },
    { type: 'turn/end', data: { turn, reason: { kind: 'completed' } } },
    { type: 'user/message', data: { role: 'user', content: big } },
  ];
}

/** A session of `turns` turns (about 40 kB each) written straight to the store. */
async function writeLargeSession(store: MemoryStore, sessionId: string, turns: number): Promise<number> {
  let bytes = 0;
  for (let turn = 1; turn <= turns; turn++) {
    const events = step(turn).map(normalizeDraft);
    bytes += JSON.stringify(events).length;
    const head = await store.head(sessionId);
    const result = await store.commit({ sessionId, expectedSeq: head.headSeq + 1, events });
    expect(result.status).toBe('committed');
  }
  return bytes;
}

describe('hub: the validation cache is bounded in bytes and never holds the events', () => {
  const store = new MemoryStore();
  afterAll(() => store.close());
  const sessions = ['cold-0', 'cold-1', 'cold-2', 'cold-3', 'cold-4', 'cold-5'];

  it('keeps a few hundred bytes per large session and stays within its budget', async () => {
    const logBytes: number[] = [];
    for (const sessionId of sessions) logBytes.push(await writeLargeSession(store, sessionId, 50));
    const maxBytes = 64 * 1024;
    const cache = new SessionCache({
      store,
      logger: createLogger('silent'),
      metrics: new HubMetrics('budget_'),
      reads: storeReadLimits({ catchUpPageSize: 100, maxFrameBytes: 1024 * 1024, maxEventBytes: 256 * 1024 }),
      maxSessions: 1000,
      maxBytes,
      idleMs: 60_000,
      lifecycle: true,
    });
    for (const [index, sessionId] of sessions.entries()) {
      const entry = await cache.acquire(sessionId);
      expect(entry.log.length).toBe(350);
      // About 2 MB stored; the validation state keeps a small fraction of it.
      expect(entry.bytes).toBeLessThan(logBytes[index]! / 50);
      cache.release(entry);
      expect(cache.bytes).toBeLessThanOrEqual(maxBytes);
    }
    expect(cache.size).toBeGreaterThan(0);
    expect(cache.size).toBeLessThan(sessions.length);
  });

  it('appends to large cold sessions through a hub with a tiny budget', async () => {
    const hub = await startHub({ store, sessionCacheBytes: 16 * 1024 });
    try {
      for (const sessionId of sessions) {
        const response = await fetch(`${hub.url}/v1/sessions/${sessionId}/events`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ events: [{ type: 'turn/start', data: { turn: 51 } }] }),
        });
        expect(await response.json()).toMatchObject({ firstSeq: 350 });
      }
    } finally {
      await hub.close();
    }
  });
});
