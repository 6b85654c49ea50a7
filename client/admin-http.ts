import { HubErrorCode } from '../shared/protocol.ts';
import type { TokenSource } from './connection.ts';
import { ClientErrorCode, HubClientError, type HubClientErrorCode } from './errors.ts';
import { httpBaseOf } from './http-base.ts';

/**
 * The hub an admin call goes to: its WebSocket endpoint (`ws://h:8080/v1/ws`) or HTTP origin (`http://h:8080`), and
 * the bearer token (as `HubClientOptions.token`: a string, or a function asked once per call).
 */
export interface HubAdminTarget {
  readonly url: string;
  readonly token?: TokenSource;
}

const HUB_CODES: ReadonlySet<string> = new Set(Object.values(HubErrorCode));

/**
 * One call of the hub's HTTP API with the target's token (the SDK's admin functions: erasure, listing): the JSON
 * object answered, or a `HubClientError` with the hub's code (FORBIDDEN, BAD_REQUEST, …), PROTOCOL for an answer of
 * another shape, TOKEN_FAILED, or CONNECT_FAILED for a hub out of reach.
 */
export async function adminCall(
  hub: HubAdminTarget,
  method: 'GET' | 'POST',
  path: string,
  body?: object,
  sessionId?: string,
): Promise<unknown> {
  let token: string | undefined;
  try {
    token = typeof hub.token === 'function' ? await hub.token() : hub.token;
  } catch (cause) {
    throw new HubClientError(ClientErrorCode.TOKEN_FAILED, `token function failed: ${String(cause)}`, { cause });
  }
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (token !== undefined) headers['authorization'] = `Bearer ${token}`;
  const url = `${httpBaseOf(hub.url)}${path}`;
  let response: Response;
  try {
    response = await fetch(url, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  } catch (cause) {
    throw new HubClientError(ClientErrorCode.CONNECT_FAILED, `${method} ${url} failed: ${String(cause)}`, {
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
