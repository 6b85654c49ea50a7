import { adminCall, type HubAdminTarget } from './admin-http.ts';

/** What erasing one session removed (`POST /v1/sessions/:id/erasure`; docs/protocol.md#erasure). */
export interface SessionErasure {
  readonly sessionId: string;
  /** True when the hub held anything of the session and deleted it; false when nothing was left (a retry). */
  readonly erased: boolean;
  /** The epoch the session had; absent when it had none. */
  readonly epoch?: string;
  /** Events the hub's store held. */
  readonly events: number;
  readonly headSeq: number;
  /** A stored snapshot went with it. */
  readonly snapshot: boolean;
  /** Stored metadata (title, labels, creator) went with it. */
  readonly metadata: boolean;
}

/** One page of a subject erasure (`POST /v1/erasures`): which sessions, matched by their metadata. */
export interface SubjectErasureRequest {
  /** At least one: the token subject that made the session, and/or a label `key=value`. */
  readonly match: { readonly createdBy?: string; readonly label?: string };
  /** True: list what would go, change nothing. Required: erasure has no default. */
  readonly dryRun: boolean;
  /** Required for a real run (the audit line's reason, at most 1,024 characters). */
  readonly reason?: string;
  /** Only sessions under it (ends with `/`): the grant is then `redact` on `<prefix>*`. */
  readonly prefix?: string;
  /** Sessions per page (dry run up to 1,000, real run up to 100). */
  readonly limit?: number;
  /** The previous page's `next`. */
  readonly after?: string;
}

export interface SubjectErasure {
  readonly dryRun: boolean;
  /** The matching session ids of this page, in id order. */
  readonly sessions: readonly string[];
  /** Real run: what each erased session held. */
  readonly erased?: readonly SessionErasure[];
  /** Real run: the sessions whose erasure failed, with the hub's code (send the request again to retry them). */
  readonly failed?: readonly { readonly sessionId: string; readonly code: string; readonly message: string }[];
  readonly scanned: number;
  /** More sessions may match: send the same request with `after: next`. */
  readonly next?: string;
}

/**
 * Erase a session (`POST /v1/sessions/:id/erasure`, the `redact` grant): what was removed (docs/client.md#erasure).
 * A refusal rejects with the hub's code (FORBIDDEN, BAD_REQUEST, …); a hub out of reach with CONNECT_FAILED.
 */
export async function eraseSession(hub: HubAdminTarget, sessionId: string, reason: string): Promise<SessionErasure> {
  const path = `/v1/sessions/${encodeURIComponent(sessionId)}/erasure`;
  return (await adminCall(hub, 'POST', path, { reason }, sessionId)) as SessionErasure;
}

/** One page of a subject erasure (`POST /v1/erasures`, the `redact` grant); `dryRun: true` lists and changes nothing. */
export async function eraseSubject(hub: HubAdminTarget, request: SubjectErasureRequest): Promise<SubjectErasure> {
  return (await adminCall(hub, 'POST', '/v1/erasures', request)) as SubjectErasure;
}
