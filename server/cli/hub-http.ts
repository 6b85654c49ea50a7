import type { ForkedMessage } from '../../shared/protocol-forks.ts';
import type { SessionEvent } from '../../shared/index.ts';
import { parseSessionMetadata, type MetadataPatch, type SessionMetadata } from '../../shared/session-metadata.ts';
import type { SessionListItem } from '../http/session-listing.ts';
import type { ErasedSession } from '../http/erasure.ts';
import type { SubjectErasureReply } from '../http/subject-erasure.ts';
import { CliFailure } from './command.ts';
import type { HubTarget } from './hub-target.ts';
import type { RedactionReply } from '../../shared/redaction.ts';

/** How long one HTTP request to the hub may take. */
const requestTimeoutMs = 30_000;

/** The hub answered with an error: its stable `code` (e.g. FORBIDDEN, SEQ_CONFLICT) and message. */
export class HubRequestError extends CliFailure {
  readonly code: string;
  readonly status: number;
  readonly details: Readonly<Record<string, unknown>> | undefined;

  constructor(status: number, code: string, message: string, details?: Readonly<Record<string, unknown>>) {
    super(`${code}: ${message}`);
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

export interface SessionHeadReply {
  readonly sessionId: string;
  readonly epoch: string;
  readonly headSeq: number;
  /** The first seq the hub still holds, on a trimmed log only (seqs below it are GONE). */
  readonly firstSeq?: number;
}

export interface EventPageReply extends SessionHeadReply {
  readonly events: readonly SessionEvent[];
  readonly next: number;
}

export interface AppendReply {
  readonly epoch: string;
  readonly firstSeq: number;
  readonly lastSeq: number;
  readonly time: number;
  readonly duplicate: boolean;
}

export interface AppendBody {
  readonly events: readonly object[];
  readonly expectedSeq?: number;
  readonly idempotencyKey?: string;
  readonly time?: number;
}

/** What `GET /v1/sessions` is asked: label filters are `key=value` or `key`. */
export interface ListQuery {
  readonly prefix?: string | undefined;
  readonly labels?: readonly string[] | undefined;
  readonly limit?: number | undefined;
  readonly after?: string | undefined;
}

export interface SessionListPage {
  readonly sessions: readonly SessionListItem[];
  readonly next?: string;
}

export interface ForkBody {
  readonly atSeq: number;
  readonly newId?: string;
  readonly repair?: boolean;
}

/** What `POST /v1/sessions/:id/forks` answers: the `forked` frame's fields (shared/protocol-forks.ts). */
export type ForkReply = Omit<ForkedMessage, 'type' | 'id'>;

/** What `POST /v1/sessions/:id/archive` answers (server/http/archive-route.ts). */
export interface ArchiveReply {
  readonly sessionId: string;
  readonly status: 'archived' | 'busy' | 'idle' | 'gap' | 'aborted';
  readonly cut?: number;
  readonly appended?: number;
  readonly trimmed?: number;
  readonly reason?: string;
}

/** What `POST /v1/sessions/:id/restore` answers (server/http/archive-route.ts). */
export interface RestoreReply {
  readonly sessionId: string;
  readonly status: 'restored' | 'too-large' | 'busy' | 'idle' | 'gap' | 'aborted';
  /** `restored`: the hot log's first seq now (the archive's first seq), events brought back, their bytes, appends copied. */
  readonly firstSeq?: number;
  readonly restored?: number;
  readonly bytes?: number;
  readonly copied?: number;
  /** `too-large`: the archived part and the hub's limits. */
  readonly events?: number;
  readonly maxEvents?: number;
  readonly maxBytes?: number;
  readonly reason?: string;
}

/** How long the CLI waits for a restore's answer (the restore goes on on the hub if it gives up). */
export const RESTORE_TIMEOUT_MS = 600_000;

/** The hub's HTTP API (docs/protocol.md, "HTTP API") as the CLI uses it. Every failure is a `CliFailure`. */
export class HubHttp {
  readonly #target: HubTarget;

  constructor(target: HubTarget) {
    this.#target = target;
  }

  head(sessionId: string): Promise<SessionHeadReply> {
    return this.#request('GET', sessionPath(sessionId)) as Promise<SessionHeadReply>;
  }

  page(sessionId: string, from: number, limit: number): Promise<EventPageReply> {
    const path = `${sessionPath(sessionId)}/events?from=${from}&limit=${limit}`;
    return this.#request('GET', path) as Promise<EventPageReply>;
  }

  /** How many clients watch the session now, on every node; undefined from a hub without the presence route. */
  async watchers(sessionId: string): Promise<number | undefined> {
    try {
      const reply = (await this.#request('GET', `${sessionPath(sessionId)}/presence`)) as { watchers?: unknown };
      return Array.isArray(reply.watchers) ? reply.watchers.length : undefined;
    } catch (error) {
      if (error instanceof HubRequestError && error.status === 404) return undefined;
      throw error;
    }
  }

  append(sessionId: string, body: AppendBody): Promise<AppendReply> {
    return this.#request('POST', `${sessionPath(sessionId)}/events`, body) as Promise<AppendReply>;
  }

  /** One page of `GET /v1/sessions` (most recently active first). */
  async list(query: ListQuery): Promise<SessionListPage> {
    const params = new URLSearchParams();
    if (query.prefix !== undefined) params.set('prefix', query.prefix);
    for (const label of query.labels ?? []) params.append('label', label);
    if (query.limit !== undefined) params.set('limit', String(query.limit));
    if (query.after !== undefined) params.set('after', query.after);
    const text = params.toString();
    return (await this.#request('GET', `/v1/sessions${text === '' ? '' : `?${text}`}`)) as SessionListPage;
  }

  /** Merge a metadata patch into a session's (`PATCH /v1/sessions/:id`, append grant). */
  async setMetadata(sessionId: string, patch: MetadataPatch): Promise<SessionMetadata> {
    const reply = (await this.#request('PATCH', sessionPath(sessionId), patch)) as { metadata: SessionMetadata };
    return reply.metadata;
  }

  /** The session's metadata, or undefined when the hub has none for it (a hub before metadata, or no session). */
  async metadata(sessionId: string): Promise<SessionMetadata | undefined> {
    try {
      const reply = (await this.#request('GET', `${sessionPath(sessionId)}/metadata`)) as { metadata: unknown };
      return parseSessionMetadata(reply.metadata);
    } catch (error) {
      if (error instanceof HubRequestError && error.status === 404) return undefined;
      throw error;
    }
  }

  /** Redact events of a session (`POST /v1/sessions/:id/redactions`). */
  redact(sessionId: string, seqs: readonly number[], reason: string): Promise<RedactionReply> {
    return this.#request('POST', `${sessionPath(sessionId)}/redactions`, { seqs, reason }) as Promise<RedactionReply>;
  }

  /** `POST /v1/sessions/:id/forks` (docs/protocol.md#forks). */
  fork(sessionId: string, body: ForkBody): Promise<ForkReply> {
    return this.#request('POST', `${sessionPath(sessionId)}/forks`, body) as Promise<ForkReply>;
  }

  /** `POST /v1/sessions/:id/archive` (admin): archive the session's prefix now; what the run did. */
  archive(sessionId: string): Promise<ArchiveReply> {
    return this.#request('POST', `${sessionPath(sessionId)}/archive`, {}) as Promise<ArchiveReply>;
  }

  /**
   * `POST /v1/sessions/:id/restore` (admin): bring the session's archived prefix back into the hot store; what the
   * run did. `force` skips the hub's size limits. Waits up to `RESTORE_TIMEOUT_MS` (a large session takes a while).
   */
  restore(sessionId: string, options: { readonly force?: boolean } = {}): Promise<RestoreReply> {
    const query = options.force === true ? '?force=true' : '';
    const path = `${sessionPath(sessionId)}/restore${query}`;
    return this.#request('POST', path, {}, RESTORE_TIMEOUT_MS) as Promise<RestoreReply>;
  }

  /** Delete a session; resolves false when there was nothing to delete. */
  async remove(sessionId: string): Promise<boolean> {
    try {
      await this.#request('DELETE', sessionPath(sessionId));
      return true;
    } catch (error) {
      if (error instanceof HubRequestError && error.status === 404 && error.code === 'NOT_FOUND') return false;
      throw error;
    }
  }

  /** Erase a session (`POST /v1/sessions/:id/erasure`, the redact grant): what it removed. */
  async erase(sessionId: string, reason: string): Promise<ErasedSession> {
    const reply = (await this.#request('POST', `${sessionPath(sessionId)}/erasure`, { reason })) as ErasedSession;
    if (typeof reply.erased !== 'boolean' || !Number.isSafeInteger(reply.events)) throw unexpected('an erasure');
    return reply;
  }

  /** One page of a subject erasure (`POST /v1/erasures`): the body as docs/protocol.md#erasure gives it. */
  async eraseSubject(body: object): Promise<SubjectErasureReply> {
    const reply = (await this.#request('POST', '/v1/erasures', body)) as SubjectErasureReply;
    const strings = (list: unknown): boolean => Array.isArray(list) && list.every((id) => typeof id === 'string');
    const lists = [reply.erased ?? [], reply.failed ?? []];
    if (
      !strings(reply.sessions) ||
      !lists.every(Array.isArray) ||
      !['string', 'undefined'].includes(typeof reply.next)
    ) {
      throw unexpected('a subject erasure');
    }
    return reply;
  }

  async #request(method: string, path: string, body?: object, timeoutMs = requestTimeoutMs): Promise<unknown> {
    const headers: Record<string, string> = {};
    if (this.#target.token !== undefined) headers['authorization'] = `Bearer ${this.#target.token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(`${this.#target.url}${path}`, {
        method,
        headers,
        signal: AbortSignal.timeout(timeoutMs),
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (error) {
      const reason = networkReason(error, timeoutMs);
      throw new CliFailure(`cannot reach the hub at ${this.#target.url}: ${reason}`, { cause: error });
    }
    const text = await response.text();
    let reply: unknown;
    try {
      reply = JSON.parse(text);
    } catch {
      throw new CliFailure(
        `the hub at ${this.#target.url} answered ${method} ${path} with ${response.status}, not JSON`,
      );
    }
    if (response.ok) return reply;
    const error = (reply as { error?: { code?: unknown; message?: unknown; details?: unknown } }).error;
    if (typeof error?.code === 'string' && typeof error.message === 'string') {
      throw new HubRequestError(response.status, error.code, error.message, error.details as Record<string, unknown>);
    }
    // A deleted session answers 404 { deleted: false }.
    throw new HubRequestError(
      response.status,
      response.status === 404 ? 'NOT_FOUND' : 'HTTP',
      `status ${response.status}`,
    );
  }
}

function sessionPath(sessionId: string): string {
  return `/v1/sessions/${encodeURIComponent(sessionId)}`;
}

/** `connect ECONNREFUSED 127.0.0.1:8080`, `timed out after 30 s`, ... rather than fetch's "fetch failed". */
function networkReason(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && error.name === 'TimeoutError') return `no answer within ${timeoutMs / 1000} s`;
  const cause = error instanceof Error ? error.cause : undefined;
  if (cause instanceof Error) {
    const nested = (cause as { errors?: unknown }).errors;
    if (Array.isArray(nested) && nested[0] instanceof Error) return nested[0].message;
    return cause.message;
  }
  return error instanceof Error ? error.message : String(error);
}

function unexpected(what: string): CliFailure {
  return new CliFailure(`the hub answered ${what} with an unexpected body`);
}
