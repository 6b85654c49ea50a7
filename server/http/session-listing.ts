import { HubErrorCode } from '../../shared/protocol.ts';
import { labelKeyProblem } from '../../shared/session-metadata.ts';
import type { ArchiveBackend } from '../archive/archive-backend.ts';
import { HubError } from '../hub-error.ts';
import type { EventStore } from '../store/event-store.ts';
import type { SessionSummary } from '../store/metadata-store.ts';
import type { SessionListing } from '../../shared/session-listing.ts';

/** One row of `GET /v1/sessions` (shared/session-listing.ts). */
export type SessionListItem = SessionListing;

export interface ListingQuery {
  /** Only sessions whose id starts with it (and is longer). */
  readonly prefix?: string;
  /** Each `[key, value]` must match (value undefined: the key must be there). */
  readonly labels: readonly (readonly [string, string | undefined])[];
  readonly limit: number;
  /** Rows after this one in the order (the previous page's `next`). */
  readonly after?: ListingCursor;
}

/** A place in the listing's order: last activity descending (empty sessions last), then id ascending. */
export interface ListingCursor {
  readonly lastActivity: number;
  readonly id: string;
}

export interface ListingPage {
  readonly sessions: readonly SessionListItem[];
  /** Pass as `after` for the next page; absent on the last page. */
  readonly next?: string;
}

/** Most rows per page, default rows per page, most label filters, summaries read at once. */
export const LISTING_LIMITS = Object.freeze({ maxLimit: 1000, defaultLimit: 100, maxLabelFilters: 8, batch: 256 });

/** Where archived sessions come from, once a cold tier is configured (`ArchiveBackend.list`). */
export type ArchivedSessionSource = Pick<ArchiveBackend, 'list'>;

const activityOf = (item: SessionListItem): number => item.lastActivity ?? -1;

function compare(a: { lastActivity: number; id: string }, b: { lastActivity: number; id: string }): number {
  if (a.lastActivity !== b.lastActivity) return b.lastActivity - a.lastActivity;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

function itemOf(summary: SessionSummary): SessionListItem {
  const { metadata } = summary;
  return {
    id: summary.sessionId,
    tier: 'hot',
    headSeq: summary.headSeq,
    ...(metadata.createdAt === undefined ? {} : { createdAt: metadata.createdAt }),
    ...(metadata.createdBy === undefined ? {} : { createdBy: metadata.createdBy }),
    ...(summary.lastActivity === undefined ? {} : { lastActivity: summary.lastActivity }),
    bytes: summary.bytes,
    ...(metadata.title === undefined ? {} : { title: metadata.title }),
    labels: metadata.labels,
    ...(metadata.parent === undefined ? {} : { parent: metadata.parent }),
    ...(metadata.forkSeq === undefined ? {} : { forkSeq: metadata.forkSeq }),
  };
}

function matches(item: SessionListItem, labels: ListingQuery['labels']): boolean {
  return labels.every(([key, value]) =>
    value === undefined ? Object.hasOwn(item.labels, key) : item.labels[key] === value,
  );
}

/** The hot sessions' rows: the store's ids, summarized a batch at a time. */
async function hotItems(store: EventStore, prefix: string): Promise<SessionListItem[]> {
  const ids = (await store.listSessions(prefix)).filter((id) => id.length > prefix.length || prefix === '');
  const items: SessionListItem[] = [];
  for (let start = 0; start < ids.length; start += LISTING_LIMITS.batch) {
    const summaries = await store.metadata.summaries(ids.slice(start, start + LISTING_LIMITS.batch));
    for (const summary of summaries) if (summary !== undefined) items.push(itemOf(summary));
  }
  return items;
}

/**
 * The archive's sessions the store no longer holds (they have no metadata: the store deleted it with them), as rows;
 * the archived part of those it holds too goes into their rows (`hot`, changed in place): a session archived and
 * trimmed to nothing has its last activity in the archive only, and its size is both tiers'.
 */
async function coldItems(
  archive: ArchivedSessionSource,
  prefix: string,
  hot: Map<string, SessionListItem>,
): Promise<SessionListItem[]> {
  const items: SessionListItem[] = [];
  let after: string | undefined;
  do {
    const page = await archive.list({
      prefix,
      limit: LISTING_LIMITS.maxLimit,
      ...(after === undefined ? {} : { after }),
    });
    for (const archived of page.sessions) {
      const held = hot.get(archived.sessionId);
      if (held !== undefined) {
        hot.set(held.id, {
          ...held,
          lastActivity: Math.max(held.lastActivity ?? archived.lastTime, archived.lastTime),
          bytes: held.bytes + archived.bytes,
        });
        continue;
      }
      items.push({
        id: archived.sessionId,
        tier: 'cold',
        headSeq: archived.nextSeq - 1,
        ...(archived.startSeq === 0 ? { createdAt: archived.firstTime } : {}),
        lastActivity: archived.lastTime,
        bytes: archived.bytes,
        labels: {},
      });
    }
    after = page.next;
  } while (after !== undefined);
  return items;
}

/**
 * A hot row's head seq as the store's `head` reads it. The summary counts the entries its stream holds, which is the
 * head only for a log held whole from seq 0: a fork holds only its own events after `forkSeq` (one with none listed
 * `-1`), a trimmed log only those from its first seq. One read per row of the page (in parallel), not per session.
 */
async function withHead(store: EventStore, item: SessionListItem): Promise<SessionListItem> {
  if (item.tier !== 'hot') return item;
  const head = await store.head(item.id);
  return head.epoch === '' || head.headSeq === item.headSeq ? item : { ...item, headSeq: head.headSeq };
}

/**
 * A page of the sessions, most recently active first. Reads every session's summary under the prefix (one small
 * script per session, in batches): O(sessions) per page, fine for the thousands a hot tier holds.
 */
export async function listSessionPage(
  store: EventStore,
  query: ListingQuery,
  archive?: ArchivedSessionSource,
): Promise<ListingPage> {
  const prefix = query.prefix ?? '';
  const hot = new Map((await hotItems(store, prefix)).map((item) => [item.id, item]));
  const cold = archive === undefined ? [] : await coldItems(archive, prefix, hot);
  const rows = [...hot.values(), ...cold]
    .filter((item) => matches(item, query.labels))
    .map((item) => ({ item, key: { lastActivity: activityOf(item), id: item.id } }))
    .sort((a, b) => compare(a.key, b.key));
  const { after } = query;
  const start = after === undefined ? 0 : rows.findIndex((row) => compare(row.key, after) > 0);
  const page = start === -1 ? [] : rows.slice(start, start + query.limit);
  const last = page[page.length - 1];
  const more = start !== -1 && start + query.limit < rows.length;
  return {
    sessions: await Promise.all(page.map((row) => withHead(store, row.item))),
    ...(more && last !== undefined ? { next: encodeCursor(last.key) } : {}),
  };
}

export function encodeCursor(cursor: ListingCursor): string {
  return Buffer.from(JSON.stringify([cursor.lastActivity, cursor.id])).toString('base64url');
}

function badQuery(message: string): HubError {
  return new HubError(HubErrorCode.BAD_REQUEST, message);
}

function decodeCursor(text: string): ListingCursor {
  let value: unknown;
  try {
    value = text.length <= 2048 ? JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) : undefined;
  } catch {
    value = undefined;
  }
  if (!Array.isArray(value) || value.length !== 2) throw badQuery('query parameter "after" is not a listing cursor');
  const [lastActivity, id] = value as [unknown, unknown];
  if (typeof lastActivity !== 'number' || !Number.isSafeInteger(lastActivity) || typeof id !== 'string') {
    throw badQuery('query parameter "after" is not a listing cursor');
  }
  return { lastActivity, id };
}

/** The listing query of a request's URL (`prefix` is checked by the caller, with the auth it implies). */
export function listingQuery(params: URLSearchParams, prefix: string | undefined): ListingQuery {
  const limitText = params.get('limit');
  const limit = limitText === null ? LISTING_LIMITS.defaultLimit : Number(limitText);
  if (!/^\d+$/.test(limitText ?? '0') || limit < 1 || limit > LISTING_LIMITS.maxLimit) {
    throw badQuery(`query parameter "limit" must be an integer from 1 to ${LISTING_LIMITS.maxLimit}`);
  }
  const filters = params.getAll('label');
  if (filters.length > LISTING_LIMITS.maxLabelFilters) {
    throw badQuery(`at most ${LISTING_LIMITS.maxLabelFilters} "label" filters`);
  }
  const labels = filters.map((filter): [string, string | undefined] => {
    const split = filter.indexOf('=');
    const key = split === -1 ? filter : filter.slice(0, split);
    if (labelKeyProblem(key) !== undefined) throw badQuery('a "label" filter is key=value or key (a label key)');
    return [key, split === -1 ? undefined : filter.slice(split + 1)];
  });
  const after = params.get('after');
  return {
    ...(prefix === undefined ? {} : { prefix }),
    labels,
    limit,
    ...(after === null ? {} : { after: decodeCursor(after) }),
  };
}
