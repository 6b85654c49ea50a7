// What the EventStore conformance files share (conformance-commit.test.ts, conformance-read-watch.test.ts): drafts
// to commit, the events of a commit, a recording watcher, how long to wait for a notification, a whole log read by pages.
import { type SessionEvent } from '../../shared/index.ts';
import { readEventPage } from '../../server/store/codec/stored-events.ts';
import {
  type CommitResult,
  type EventStore,
  type CommittedBatch,
  type StoreWatchHandlers,
  type ValidatedDraft,
} from '../../server/store/event-store.ts';

/** `vi.waitFor` options for what arrives by notification. */
export const WAIT = { timeout: 10_000, interval: 10 };

/** `count` drafts of type test/event, data `{ label, index }`. */
export function drafts(count: number, label = 'e'): ValidatedDraft[] {
  return Array.from({ length: count }, (_, index) => ({ type: 'test/event', data: { label, index } }));
}

/** The events of a commit; throws on any other result. */
export function committed(result: CommitResult): readonly SessionEvent[] {
  if (result.status !== 'committed') throw new Error(`expected a commit, got ${result.status}`);
  return result.events;
}

/** A watcher that records what it receives. */
export function recorder(): StoreWatchHandlers & { batches: CommittedBatch[]; resyncs: number } {
  const state = {
    batches: [] as CommittedBatch[],
    resyncs: 0,
    onCommitted(batch: CommittedBatch) {
      state.batches.push(batch);
    },
    onResync() {
      state.resyncs++;
    },
  };
  return state;
}

/** Every event of a session, read page by page (pages of a fork's prefix end at its fork seq). */
export async function readAll(store: EventStore, sessionId: string, pageSize = 4): Promise<SessionEvent[]> {
  const events: SessionEvent[] = [];
  for (;;) {
    const page = await readEventPage(store, sessionId, events.length, pageSize);
    if (page.events.length === 0) return events;
    events.push(...page.events);
  }
}
