import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Session } from '../../shared/index.ts';
import { NO_EPOCH } from '../../server/store/event-store.ts';
import { MemoryBackend } from '../../server/store/memory/memory-backend.ts';
import { MemoryStore } from '../../server/store/memory/memory-store.ts';
import { startHub, type TestHub } from '../helpers/hub.ts';

const user = (content: string) => ({ type: 'user/message', data: { role: 'user', content } });
const toolResult = (content: string, extra: Record<string, unknown> = {}) => ({
  type: 'tool/result',
  data: { turn: 1, step: 1, message: { role: 'tool', toolCallId: 'c', toolName: 't', content, isError: false } },
  ...extra,
});
/** A turn whose step calls tool `t` (id `c`): the tool result that follows is at seq 4. */
const callingTurn = [
  user('q'),
  { type: 'turn/start', data: { turn: 1 } },
  { type: 'step/start', data: { turn: 1, step: 1 } },
  { type: 'tool/call', data: { turn: 1, step: 1, callId: 'c', name: 't', arguments: '{}' } },
];

async function post(hub: TestHub, events: unknown[]): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${hub.url}/v1/sessions/s/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ events }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/**
 * Node A caches a session; node B deletes it and rewrites as many events. A's next append was validated against
 * the old epoch: it must be re-validated against the new log (never stored on top of it).
 */
describe('hub: an append validated against a deleted epoch', () => {
  const backend = new MemoryBackend();
  const storeA = new MemoryStore({ backend });
  const storeB = new MemoryStore({ backend });
  let nodeA: TestHub;
  let nodeB: TestHub;
  beforeAll(async () => {
    nodeA = await startHub({ store: storeA });
    nodeB = await startHub({ store: storeB });
  });
  afterAll(async () => {
    await Promise.all([nodeA.close(), nodeB.close()]);
    await Promise.all([storeA.close(), storeB.close()]);
  });

  it('is re-validated on the new log: refused, and the stored log stays valid', async () => {
    expect(await post(nodeA, [...callingTurn, toolResult('long')])).toMatchObject({ status: 201 });
    expect((await fetch(`${nodeB.url}/v1/sessions/s`, { method: 'DELETE' })).status).toBeLessThan(300);
    // Deleted, the session has no epoch until its next first commit creates a new one.
    expect(await storeB.head('s')).toEqual({ epoch: NO_EPOCH, headSeq: -1 });
    expect((await post(nodeB, ['x', 'y', 'u', 'v', 'w'].map(user))).status).toBe(201);
    const { epoch } = await storeB.head('s');
    expect(epoch).not.toBe(NO_EPOCH);
    // Valid on A's cached (old) session, invalid on the new log: seq 4 is a user/message now.
    const pruned = toolResult('pruned', { surfaceOp: { op: 'replace', startSeq: 4, endSeq: 4 }, sourceEventSeqs: [4] });
    const stale = await post(nodeA, [pruned]);
    expect(stale.status).toBeGreaterThanOrEqual(400);
    expect(stale.body).not.toMatchObject({ error: { code: 'SEQ_CONFLICT' } });
    const log = await storeA.read('s', 0, 100);
    expect(log.map((event) => event.type)).toEqual(Array(5).fill('user/message'));
    expect(() => Session.fromLog(log)).not.toThrow();
    // Both nodes keep appending normally afterwards.
    const next = await post(nodeB, [user('z')]);
    expect(next).toMatchObject({ status: 201, body: { epoch, firstSeq: 5 } });
    expect(await post(nodeA, [user('w')])).toMatchObject({ status: 201, body: { epoch, firstSeq: 6 } });
    expect(() => Session.fromLog(log)).not.toThrow();
  });
});
