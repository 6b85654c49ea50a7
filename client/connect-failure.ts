import type { HubClientErrorCode } from './errors.ts';

/** Why a connection attempt failed, as far as the platform tells (browsers hide the cause: `unknown`). */
export type ConnectFailureKind = 'refused' | 'dns' | 'tls' | 'http' | 'timeout' | 'closed' | 'network' | 'unknown';

/** Why the connection state changed: a stable code and a sentence (centrifuge-js style). */
export interface StateCause {
  /**
   * `CONNECTING`, `CONNECTED`, `CONNECT_FAILED` (an attempt failed), `CONNECTION_LOST` (a welcomed connection
   * ended), `HEARTBEAT_TIMEOUT`, `CLIENT_CLOSED` (`close()`), or the error code that caused it (`UNAUTHORIZED`,
   * `TOKEN_FAILED`, `PROTOCOL`, `CONNECTION_REFUSED`, ...).
   */
  readonly code: StateChangeCode;
  /** What happened, in a sentence (the cause only: the retry plan is in `retryInMs` / `retryUrl`). */
  readonly reason: string;
  /** `disconnected` only: when the next attempt is made, in ms. */
  readonly retryInMs?: number;
  /** `disconnected` only: the URL the next attempt goes to. */
  readonly retryUrl?: string;
}

/** A state change as `HubClient` reports it: `{ state, previous, code, reason }`, and for `disconnected` `retryInMs` and `retryUrl`. */
export interface StateChange extends StateCause {
  readonly state: 'connecting' | 'connected' | 'disconnected' | 'closed';
  readonly previous: 'connecting' | 'connected' | 'disconnected' | 'closed';
}

export type StateChangeCode =
  | 'CONNECTING'
  | 'CONNECTED'
  | 'CONNECT_FAILED'
  | 'CONNECTION_LOST'
  | 'HEARTBEAT_TIMEOUT'
  | 'CLIENT_CLOSED'
  | HubClientErrorCode;

/** A failed attempt: what the `CONNECT_FAILED` error reports (`details.kind`, `details.status` for HTTP). */
export interface ConnectFailure {
  readonly kind: ConnectFailureKind;
  readonly reason: string;
  readonly status?: number;
  readonly causeCode?: string;
}

const TLS_CODE = /CERT|TLS|SSL|SELF_SIGNED|UNABLE_TO_VERIFY/;

/**
 * Classify what the socket reported before it closed without a welcome: its `error` event (from `ws`: an Error
 * with a Node `code`, or "Unexpected server response: 404" for an HTTP answer to the upgrade) and its close code.
 */
export function connectFailure(
  socketError: unknown,
  closeCode: number | undefined,
  closeReason: string,
): ConnectFailure {
  const error = errorOf(socketError);
  const causeCode = typeof error?.code === 'string' ? error.code : undefined;
  const message = typeof error?.message === 'string' ? error.message : undefined;
  const status = message === undefined ? undefined : /Unexpected server response: (\d{3})/.exec(message)?.[1];
  const withCode = causeCode === undefined ? {} : { causeCode };
  if (status !== undefined) {
    return {
      kind: 'http',
      status: Number(status),
      reason: `the upgrade was answered with HTTP ${status}`,
      ...withCode,
    };
  }
  if (causeCode === 'ECONNREFUSED') return { kind: 'refused', reason: message ?? 'connection refused', causeCode };
  if (causeCode === 'ENOTFOUND' || causeCode === 'EAI_AGAIN') {
    return { kind: 'dns', reason: message ?? 'host not found', causeCode };
  }
  if (
    (causeCode !== undefined && TLS_CODE.test(causeCode)) ||
    (message !== undefined && /certificate|TLS|SSL/i.test(message))
  ) {
    return { kind: 'tls', reason: message ?? 'TLS handshake failed', ...withCode };
  }
  if (message !== undefined) return { kind: 'network', reason: message, ...withCode };
  if (closeCode !== undefined && closeCode !== 1006) {
    const said = closeReason === '' ? '' : `: ${closeReason}`;
    return { kind: 'closed', reason: `the hub closed the connection before welcome (${closeCode}${said})` };
  }
  return { kind: 'unknown', reason: 'the connection closed before welcome (the platform gives no cause)' };
}

/** The error inside a socket `error` event (`ws`: `event.error`; an Error itself; browsers: nothing useful). */
function errorOf(value: unknown): { code?: unknown; message?: unknown } | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const inner = (value as { error?: unknown }).error;
  if (typeof inner === 'object' && inner !== null) return inner as { code?: unknown; message?: unknown };
  return value instanceof Error ? (value as Error & { code?: unknown }) : undefined;
}
