import { HubErrorCode } from '../shared/protocol.ts';
import { ClientErrorCode, HubClientError, type HubClientErrorCode } from './errors.ts';
import { httpBaseOf } from './http-base.ts';
import type { TokenSource } from './connection.ts';

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
 * The hub an admin call goes to: its WebSocket endpoint (`ws://h:8080/v1/ws`) or HTTP origin (`http://h:8080`), and
 * the bearer token (as `HubClientOptions.token`: a string, or a function asked once per call).
 */
export interface HubAdminTarget {
  readonly url: string;
  readonly token?: TokenSource;
}

const HUB_CODES: ReadonlySet<string> = new Set(Object.values(HubErrorCode));

async function post(hub: HubAdminTarget, path: string, body: object, sessionId?: string): Promise<unknown> {
  let token: string | undefined;
  try {
    token = typeof hub.token === 'function' ? await hub.token() : hub.token;
  } catch (cause) {
    throw new HubClientError(ClientErrorCode.TOKEN_FAILED, `token function failed: ${String(cause)}`, { cause });
  }
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (token !== undefined) headers['authorization'] = `Bearer ${token}`;
  const url = `${httpBaseOf(hub.url)}${path}`;
  let response: Response;
  try {
    response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
  } catch (cause) {
    throw new HubClientError(ClientErrorCode.CONNECT_FAILED, `POST ${url} failed: ${String(cause)}`, {
      ...(sessionId === undefined ? {} : { sessionId }),
      cause,
      details: { url, kind: 'http' },
    });
  }
  const reply: unknown = await response.json().catch(() => undefined);
  if (response.ok && typeof reply === 'object' && reply !== null) return reply;
  const error = (reply as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
  const code = typeof error?.code === 'string' && HUB_CODES.has(error.code) ? error.code : ClientErrorCode.PROTOCOL;
  const message = typeof error?.message === 'string' ? error.message : `HTTP ${response.status} from ${url}`;
  throw new HubClientError(code as HubClientErrorCode, message, {
    ...(sessionId === undefined ? {} : { sessionId }),
    details: { status: response.status },
  });
}

/**
 * Erase a session (`POST /v1/sessions/:id/erasure`, the `redact` grant): what was removed (docs/client.md#erasure).
 * A refusal rejects with the hub's code (FORBIDDEN, BAD_REQUEST, …); a hub out of reach with CONNECT_FAILED.
 */
export async function eraseSession(hub: HubAdminTarget, sessionId: string, reason: string): Promise<SessionErasure> {
  const path = `/v1/sessions/${encodeURIComponent(sessionId)}/erasure`;
  return (await post(hub, path, { reason }, sessionId)) as SessionErasure;
}

/** One page of a subject erasure (`POST /v1/erasures`, the `redact` grant); `dryRun: true` lists and changes nothing. */
export async function eraseSubject(hub: HubAdminTarget, request: SubjectErasureRequest): Promise<SubjectErasure> {
  return (await post(hub, '/v1/erasures', request)) as SubjectErasure;
}
