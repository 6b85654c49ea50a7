// Where an archive run cuts (server/archive/archive-run.ts): never inside an open turn (the shared log core's
// lifecycle), never past the latest snapshot's seq + 1 (Redis keeps the snapshot's tail), never past `before`;
// one run per session at a time (the lease). On the memory engine and the file archive (the cut is the store's and
// the run's logic; the Redis engine and both backends run it in tiered-store.test.ts and archive-faults.test.ts).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { MessageProjector } from '../../shared/index.ts';
import { archiveSession, SCAN_EVENTS_PER_YIELD } from '../../server/archive/archive-run.ts';
import type { EventStore } from '../../server/store/event-store.ts';
import { MemoryStore } from '../../server/store/memory/memory-store.ts';
import type { ArchiveHarness } from './archive-harness.ts';
import { openFileHarness } from './file-harness.ts';
import { commitAll, turnDrafts } from './tier-helpers.ts';

describe('archive run: the cut', () => {
  let harness: ArchiveHarness;
  let store: MemoryStore;
  const newSession = (): string => `cut-${randomUUID()}`;
  const runOf = (sessionId: string, before?: number) =>
    archiveSession({
      store,
      archive: harness.backend,
      sessionId,
      token: randomUUID(),
      ...(before === undefined ? {} : { before }),
    });

  beforeAll(async () => {
    harness = await openFileHarness();
    store = new MemoryStore();
  });
  afterAll(async () => {
    await store.close();
    await harness.close();
  });

  test('stops at the start of an open turn, and goes on once the turn ended', async () => {
    const sessionId = newSession();
    const [open, chunks, end] = turnDrafts(3, 1).slice(6); // turn 3's three batches
    await commitAll(store, sessionId, turnDrafts(2));
    const closed = (await store.head(sessionId)).headSeq + 1;
    await commitAll(store, sessionId, [open!, chunks!]);
    expect(await runOf(sessionId)).toMatchObject({ status: 'archived', cut: closed });
    expect(await store.head(sessionId)).toMatchObject({ firstSeq: closed });
    expect(await runOf(sessionId)).toEqual({ status: 'idle' }); // the turn is still open
    await commitAll(store, sessionId, [end!]);
    const head = await store.head(sessionId);
    expect(await runOf(sessionId)).toMatchObject({ status: 'archived', cut: head.headSeq + 1 });
  });

  test('keeps the latest snapshot tail and what `before` keeps', async () => {
    const sessionId = newSession();
    const epoch = await commitAll(store, sessionId, turnDrafts(6));
    const events = await store.read(sessionId, 0, 1000);
    const projector = new MessageProjector();
    const boundary = events.findIndex(
      (event) => event.type === 'turn/end' && (event.data as { turn: number }).turn === 3,
    );
    projector.applyAll(events.slice(0, boundary + 3)); // into turn 4: the cut is the turn boundary before it
    const seq = boundary + 2;
    expect(await store.snapshots.put(sessionId, { epoch, seq, state: projector.exportState() })).toBe('written');
    expect(await runOf(sessionId)).toMatchObject({ status: 'archived', cut: boundary + 1 });
    const second = events.findIndex(
      (event) => event.type === 'turn/end' && (event.data as { turn: number }).turn === 5,
    );
    expect(await runOf(sessionId, second + 3)).toEqual({ status: 'idle' }); // still under the snapshot
    expect(await store.snapshots.put(sessionId, { epoch, seq: events.length - 1, state: stateOf(events) })).toBe(
      'written',
    );
    expect(await runOf(sessionId, second + 3)).toMatchObject({ status: 'archived', cut: second + 1 });
  });

  test("the turn-boundary scan lets the node's other work run while it decodes a long page", async () => {
    const sessionId = newSession();
    await commitAll(store, sessionId, turnDrafts(300));
    const events = (await store.head(sessionId)).headSeq + 1;
    // Event-loop turns, counted by a setImmediate chain, as of each hot page read: the scan reads the whole hot log
    // as one page (the memory engine answers without I/O), the copy reads it again; only the scan runs between.
    let turns = 0;
    let counting = true;
    const count = (): void => {
      turns++;
      if (counting) setImmediate(count);
    };
    setImmediate(count);
    const turnsAtRead: number[] = [];
    const watched = new Proxy(store, {
      get(target, property) {
        if (property === 'readStoredPage') {
          return (...args: Parameters<EventStore['readStoredPage']>) => {
            turnsAtRead.push(turns);
            return target.readStoredPage(...args);
          };
        }
        const value = Reflect.get(target, property, target) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const run = await archiveSession({
      store: watched,
      archive: harness.backend,
      sessionId,
      token: randomUUID(),
      segmentEvents: events,
    }).finally(() => (counting = false));
    expect(run).toMatchObject({ status: 'archived', cut: events });
    expect(events).toBeGreaterThan(4 * SCAN_EVENTS_PER_YIELD);
    expect(turnsAtRead[1]! - turnsAtRead[0]!).toBeGreaterThanOrEqual(Math.floor(events / SCAN_EVENTS_PER_YIELD) - 1);
  });

  test('one run per session: a run while another holds the lease is busy', async () => {
    const sessionId = newSession();
    await commitAll(store, sessionId, turnDrafts(2));
    expect(await store.archiveLease.acquire(sessionId, 'other-node', 60_000)).toBe(true);
    expect(await runOf(sessionId)).toEqual({ status: 'busy' });
    expect(await store.head(sessionId)).not.toHaveProperty('firstSeq');
    await store.archiveLease.release(sessionId, 'other-node');
    expect(await runOf(sessionId)).toMatchObject({ status: 'archived' });
  });
});

function stateOf(events: Parameters<MessageProjector['applyAll']>[0]): ReturnType<MessageProjector['exportState']> {
  const projector = new MessageProjector();
  projector.applyAll(events);
  return projector.exportState();
}
