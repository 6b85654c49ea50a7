// The readers of the read-contract property: each reads a session by one path and must end with the model's events
// (seq, type, body) and `deriveMessages` of the whole log. The store pages read through the composed stores from a
// random seq, in pages of random counts and byte bounds; the hub readers go through a real hub: its HTTP pages, the
// CLI's export, and the SDK joining from seq 0, from the hub's snapshot, and resuming a kept copy.
import { expect, vi } from 'vitest';
import type { HubClient, SubscriptionSnapshot } from '../../../client/index.ts';
import type { Subscription } from '../../../client/subscription.ts';
import { decodeStoredPage } from '../../../server/store/codec/stored-events.ts';
import type { EventStore } from '../../../server/store/event-store.ts';
import type { SessionEvent } from '../../../shared/index.ts';
import { deriveMessages, MessageProjector, parseJsonl } from '../../../shared/index.ts';
import { runCliHere } from '../../cli/run-cli.ts';
import type { TestHub } from '../../helpers/hub.ts';
import { factsOf, type EventFacts, type LogModel } from './read-contract-model.ts';

/** How a store reader pages: from which seq (a fraction of the log), how many events and bytes a page. */
export interface PageShape {
  readonly from: number;
  readonly limit: number;
  readonly maxBytes: number | undefined;
}

/** The whole log through the store pages from `from` on; checks each page starts where asked, in one epoch. */
export async function storePages(store: EventStore, id: string, shape: PageShape, headSeq: number) {
  const from = Math.floor(shape.from * (headSeq + 2));
  const events: SessionEvent[] = [];
  const epochs = new Set<string | undefined>();
  for (let seq = from; ;) {
    const page = await store.readStoredPage(id, seq, shape.limit, shape.maxBytes);
    expect(page.firstSeq, `${id} page at ${seq}`).toBe(seq);
    const decoded = decodeStoredPage(id, page);
    epochs.add(decoded.epoch);
    if (decoded.events.length === 0) break;
    events.push(...decoded.events);
    seq += decoded.events.length;
  }
  expect(epochs.size, `${id}: pages of one epoch`).toBe(1);
  return { from, events };
}

/**
 * Reads every session of the model through the store pages (from seq 0, and from `shape.from`), checks them against
 * the model, and returns each session's resolved reference log (the one the other readers must equal exactly).
 */
export async function checkStoreReads(
  store: EventStore,
  model: LogModel,
  ids: readonly string[],
  shape: PageShape,
): Promise<Map<string, EventFacts[]>> {
  const references = new Map<string, EventFacts[]>();
  for (const id of ids) {
    const headSeq = model.headSeq(id);
    expect(await store.head(id), id).toMatchObject({ headSeq });
    const whole = await storePages(store, id, { ...shape, from: 0 }, headSeq);
    const reference = model.resolve(id, whole.events);
    expect(deriveMessages(whole.events), `${id} messages`).toEqual(deriveMessages(asEvents(reference)));
    const part = await storePages(store, id, shape, headSeq);
    expect(part.events.map(factsOf), `${id} from ${part.from}`).toEqual(reference.slice(part.from));
    references.set(id, reference);
  }
  return references;
}

function asEvents(reference: readonly EventFacts[]): SessionEvent[] {
  return reference.map((event) => ({ ...event, time: 1 }) as SessionEvent);
}

/** The reader's events and messages equal the reference (events from `from` on). */
function expectReference(
  what: string,
  events: readonly SessionEvent[],
  messages: unknown,
  reference: EventFacts[],
  from = 0,
) {
  expect(events.map(factsOf), `${what}: events`).toEqual(reference.slice(from));
  expect(messages, `${what}: messages`).toEqual(deriveMessages(asEvents(reference)));
}

/** How long a subscription may take to reach the head (a condition polled, never a pass/fail timing). */
const WAIT = { timeout: 15_000, interval: 10 };

const path = (id: string): string => `/v1/sessions/${encodeURIComponent(id)}`;

/** Every HTTP page of the session from seq 0, `limit` events each. */
async function httpEvents(hub: TestHub, id: string, limit: number): Promise<SessionEvent[]> {
  const events: SessionEvent[] = [];
  for (let from = 0; ;) {
    const response = await fetch(`${hub.url}${path(id)}/events?from=${from}&limit=${limit}`);
    const text = await response.text();
    expect(response.status, text).toBe(200);
    const page = JSON.parse(text) as { events: SessionEvent[]; next: number; headSeq: number };
    events.push(...page.events);
    if (page.events.length === 0 || page.next > page.headSeq) return events;
    from = page.next;
  }
}

/** Subscribes and waits until the subscription is live at `headSeq`, failing on its errors. */
async function liveAt(subscription: Subscription, headSeq: number): Promise<void> {
  const errors: unknown[] = [];
  subscription.on('error', (error) => errors.push(error));
  await subscription.whenLive();
  await vi.waitFor(() => {
    expect(errors).toEqual([]);
    expect(subscription.lastSeq).toBe(headSeq);
  }, WAIT);
}

/** What a hub reader of one session needs. */
export interface HubReaders {
  readonly hub: TestHub;
  readonly client: HubClient;
}

/**
 * Reads one session through the hub by every path and checks each against its reference: HTTP pages, the CLI's
 * export, the SDK from seq 0, from the hub's snapshot, and resumed from a kept copy cut at `keep` (a fraction).
 */
export async function checkHubReads(
  { hub, client }: HubReaders,
  id: string,
  reference: EventFacts[],
  options: { readonly limit: number; readonly keep: number },
): Promise<void> {
  const headSeq = reference.length - 1;
  const pages = await httpEvents(hub, id, options.limit);
  expectReference(`${id} HTTP pages of ${options.limit}`, pages, deriveMessages(pages), reference);
  // The HTTP snapshot, then the events after it from those pages.
  const response = await fetch(`${hub.url}${path(id)}/snapshot`);
  const snapshot = (await response.json()) as { seq: number; state: unknown };
  expect(response.status, JSON.stringify(snapshot)).toBe(200);
  const projector = MessageProjector.fromState(snapshot.state);
  for (const event of pages.slice(snapshot.seq + 1)) projector.apply(event);
  expect(projector.messages, `${id} HTTP snapshot at ${snapshot.seq}`).toEqual(deriveMessages(asEvents(reference)));

  const exported = await runCliHere(['export', id, '--url', hub.url]);
  expect(exported.code, exported.stderr).toBe(0);
  const lines = parseJsonl(exported.stdout);
  expectReference(`${id} export`, lines, deriveMessages(lines), reference);

  const whole = client.subscribe(id);
  let kept;
  try {
    await liveAt(whole, headSeq);
    expectReference(`${id} SDK from 0`, whole.events, whole.messages, reference);
    kept = cut(whole.snapshot(), options.keep);
  } finally {
    whole.close();
  }

  await checkResume(client, kept, reference);

  // Resumed by position: `{ fromSeq, epoch }` of the kept copy's end (the events from there; no messages derived).
  const fromSeq = kept.events.length;
  const positioned = client.subscribe(id, { fromSeq, ...(kept.epoch === null ? {} : { epoch: kept.epoch }) });
  try {
    await liveAt(positioned, headSeq);
    expect(positioned.events.map(factsOf), `${id} SDK from seq ${fromSeq}`).toEqual(reference.slice(fromSeq));
  } finally {
    positioned.close();
  }

  const joined = client.subscribe(id, { from: 'snapshot' });
  try {
    await liveAt(joined, headSeq);
    const from = (joined.snapshotSeq ?? -1) + 1;
    expectReference(`${id} SDK from the snapshot at ${from - 1}`, joined.events, joined.messages, reference, from);
  } finally {
    joined.close();
  }
}

/** A subscription's copy cut to its first events (a fraction `keep` of them): a copy kept earlier. */
export function cut(snapshot: SubscriptionSnapshot, keep: number): SubscriptionSnapshot {
  return { ...snapshot, events: snapshot.events.slice(0, Math.floor(keep * snapshot.events.length)) };
}

/** A copy of a session kept by a subscription from seq 0 once live at `headSeq`, cut at `keep`. */
export async function keepCopy(client: HubClient, id: string, headSeq: number, keep: number) {
  const subscription = client.subscribe(id);
  try {
    await liveAt(subscription, headSeq);
    return cut(subscription.snapshot(), keep);
  } finally {
    subscription.close();
  }
}

/**
 * A subscription resumed from a kept copy ends with the reference's events and messages. `forkPrefixRedacted`: the
 * copy is a fork's and an ancestor was redacted since it was kept; the fork's epoch stays, so the hub sends only
 * what follows the copy, which keeps the bodies it had (docs/storage.md#forks: a fork's subscribers see a redaction
 * of its parent on their next join from the hub, not in a copy they resume): only those events are compared.
 */
export async function checkResume(
  client: HubClient,
  kept: SubscriptionSnapshot,
  reference: EventFacts[],
  forkPrefixRedacted = false,
) {
  const id = kept.sessionId;
  const resumed = client.subscribe(id, { resume: kept });
  try {
    await liveAt(resumed, reference.length - 1);
    const what = `${id} SDK resumed at ${kept.events.length}`;
    if (!forkPrefixRedacted) expectReference(what, resumed.events, resumed.messages, reference);
    else
      expect(resumed.events.slice(kept.events.length).map(factsOf), what).toEqual(reference.slice(kept.events.length));
  } finally {
    resumed.close();
  }
}

/**
 * A subscription kept open through the run's operations ends at the head with the reference's events and messages;
 * with `ownFrom` (a fork whose ancestor was redacted since it subscribed: it is not told, docs/storage.md#forks) only
 * its events from that seq on are compared.
 */
export async function checkLive(subscription: Subscription, id: string, reference: EventFacts[], ownFrom = 0) {
  await liveAt(subscription, reference.length - 1);
  await vi.waitFor(() => {
    const what = `${id} live subscription`;
    if (ownFrom === 0) expectReference(what, subscription.events, subscription.messages, reference);
    else {
      const own = subscription.events.filter((event) => event.seq >= ownFrom);
      expect(own.map(factsOf), what).toEqual(reference.slice(ownFrom));
    }
  }, WAIT);
}
