import { adminCall, type HubAdminTarget } from './admin-http.ts';

export type { SessionListing } from '../shared/session-listing.ts';
import type { SessionListing } from '../shared/session-listing.ts';

/** Which sessions, and which page: all optional. */
export interface ListSessionsRequest {
  /** Only ids under it (ends with `/`): the grant is then `admin` on `<prefix>*` instead of on `*`. */
  readonly prefix?: string;
  /** Each must hold: `key=value` (the label has that value) or `key` (the label is there); at most 8. */
  readonly labels?: readonly string[];
  /** Sessions per page, 1 to 1,000 (the hub's default: 100). */
  readonly limit?: number;
  /** The previous page's `next`. */
  readonly after?: string;
}

/** A page of the listing: most recently active first, then by id. */
export interface SessionList {
  /** The rows of this page, in the listing's order. */
  readonly sessions: readonly SessionListing[];
  /** More follow: ask again with `after: next`. Absent on the last page. */
  readonly next?: string;
}

/**
 * One page of the hub's sessions (`GET /v1/sessions`, the `admin` grant), with their title, labels, creator, lineage
 * and last activity (docs/client.md#listing-sessions). A refusal rejects with the hub's code (FORBIDDEN,
 * BAD_REQUEST), a hub out of reach with CONNECT_FAILED.
 */
export async function listSessions(hub: HubAdminTarget, request: ListSessionsRequest = {}): Promise<SessionList> {
  const query = new URLSearchParams();
  if (request.prefix !== undefined) query.set('prefix', request.prefix);
  for (const label of request.labels ?? []) query.append('label', label);
  if (request.limit !== undefined) query.set('limit', String(request.limit));
  if (request.after !== undefined) query.set('after', request.after);
  const search = query.toString() === '' ? '' : `?${query.toString()}`;
  return (await adminCall(hub, 'GET', `/v1/sessions${search}`)) as SessionList;
}
