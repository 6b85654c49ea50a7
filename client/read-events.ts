import type { SessionEvent } from '../shared/events.ts';
import { HubErrorCode } from '../shared/protocol.ts';
import { ClientErrorCode, HubClientError, type HubClientErrorCode } from './errors.ts';

/** Events asked for per HTTP page (the hub may answer fewer: its `catchUpPageSize` and `maxFrameBytes`). */
const PAGE_EVENTS = 500;

/** A range of a session's events read over HTTP, and the epoch they belong to. */
export interface EventRange {
  readonly epoch: string;
  readonly events: readonly SessionEvent[];
}

const HUB_CODES: ReadonlySet<string> = new Set(Object.values(HubErrorCode));

async function getPage(url: string, token: string | undefined, sessionId: string): Promise<unknown> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (token !== undefined) headers['authorization'] = `Bearer ${token}`;
  let response: Response;
  try {
    response = await fetch(url, { headers });
  } catch (cause) {
    throw new HubClientError(ClientErrorCode.CONNECT_FAILED, `GET ${url} failed: ${String(cause)}`, {
      sessionId,
      cause,
      details: { url, kind: 'http' },
    });
  }
  const body: unknown = await response.json().catch(() => undefined);
  if (response.ok) return body;
  const error = (body as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
  const code = typeof error?.code === 'string' && HUB_CODES.has(error.code) ? error.code : ClientErrorCode.PROTOCOL;
  const message = typeof error?.message === 'string' ? error.message : `HTTP ${response.status} from ${url}`;
  throw new HubClientError(code as HubClientErrorCode, message, { sessionId, details: { status: response.status } });
}

/**
 * Seqs `from..until` (inclusive) of a session, read page by page from `GET /v1/sessions/:id/events`, all of one
 * epoch (`epoch` when given). A page of another epoch (the session was rewritten meanwhile) fails with
 * SEQ_OUT_OF_RANGE, as does a log that ends before `until`.
 */
export async function readEventRange(options: {
  readonly baseUrl: string;
  readonly token: string | undefined;
  readonly sessionId: string;
  readonly from: number;
  readonly until: number;
  readonly epoch?: string;
}): Promise<EventRange> {
  const { baseUrl, token, sessionId, from, until } = options;
  const events: SessionEvent[] = [];
  let epoch = options.epoch;
  let next = from;
  const lost = (reason: string): HubClientError =>
    new HubClientError(HubErrorCode.SEQ_OUT_OF_RANGE, `events ${from}..${until} of ${sessionId}: ${reason}`, {
      sessionId,
      details: { from, until, next },
    });
  while (next <= until) {
    const limit = Math.min(PAGE_EVENTS, until - next + 1);
    const url = `${baseUrl}/v1/sessions/${encodeURIComponent(sessionId)}/events?from=${next}&limit=${limit}`;
    const body = (await getPage(url, token, sessionId)) as { epoch?: unknown; events?: unknown } | undefined;
    if (typeof body?.epoch !== 'string' || !Array.isArray(body.events)) {
      throw new HubClientError(ClientErrorCode.PROTOCOL, `unexpected answer from ${url}`, { sessionId });
    }
    if (epoch !== undefined && body.epoch !== epoch) throw lost('the session was rewritten (another epoch)');
    epoch = body.epoch;
    const page = (body.events as SessionEvent[]).filter((event) => event.seq >= next && event.seq <= until);
    if (page.length === 0 || page[0]!.seq !== next) throw lost(`the log holds no event at seq ${next}`);
    for (const event of page) {
      if (event.seq !== next) throw lost(`seq ${event.seq} where ${next} was expected`);
      events.push(event);
      next++;
    }
  }
  return { epoch: epoch ?? '', events };
}
