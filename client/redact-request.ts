import type { HubErrorCode } from '../shared/protocol.ts';
import type { RedactionReply } from '../shared/redaction.ts';
export type { RedactionReply } from '../shared/redaction.ts';
import { ClientErrorCode, HubClientError, type HubClientErrorDetails } from './errors.ts';

/** `POST /v1/sessions/:id/redactions` with the client's token; hub errors keep their code. */
export async function requestRedaction(
  base: string,
  token: string | undefined,
  body: { readonly sessionId: string; readonly seqs: readonly number[]; readonly reason: string },
  timeoutMs: number,
): Promise<RedactionReply> {
  const { sessionId, seqs, reason } = body;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token !== undefined) headers['authorization'] = `Bearer ${token}`;
  let response: Response;
  try {
    response = await fetch(`${base}/v1/sessions/${encodeURIComponent(sessionId)}/redactions`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ seqs, reason }),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (cause) {
    const timedOut = cause instanceof Error && cause.name === 'TimeoutError';
    const code = timedOut ? ClientErrorCode.TIMEOUT : ClientErrorCode.NOT_SENT;
    throw new HubClientError(code, `redaction request to ${base} failed: ${String(cause)}`, { sessionId, cause });
  }
  let reply: unknown;
  try {
    reply = await response.json();
  } catch (cause) {
    throw new HubClientError(ClientErrorCode.PROTOCOL, `the hub answered ${response.status}, not JSON`, { cause });
  }
  if (response.ok) return reply as RedactionReply;
  const error = (reply as { error?: { code?: string; message?: string; details?: HubClientErrorDetails } }).error;
  throw new HubClientError(
    (error?.code ?? ClientErrorCode.PROTOCOL) as HubErrorCode,
    error?.message ?? `the hub answered ${response.status}`,
    { sessionId, details: error?.details },
  );
}
