// Where the hub is and who the page is: the page is served by the hub it inspects, so the hub is this origin.
// A token comes from `?token=` (then moved out of the URL) or from what the user pasted, kept in sessionStorage.
const TOKEN_KEY = 'session-hub-inspector-token';

export function readToken(): string | undefined {
  const url = new URL(location.href);
  const fromUrl = url.searchParams.get('token');
  if (fromUrl !== null && fromUrl !== '') {
    sessionStorage.setItem(TOKEN_KEY, fromUrl);
    url.searchParams.delete('token');
    history.replaceState(null, '', url);
    return fromUrl;
  }
  return sessionStorage.getItem(TOKEN_KEY) ?? undefined;
}

export function saveToken(token: string | undefined): void {
  if (token === undefined || token === '') sessionStorage.removeItem(TOKEN_KEY);
  else sessionStorage.setItem(TOKEN_KEY, token);
}

export function hubSocketUrl(): string {
  return `${location.protocol === 'https:' ? 'wss:' : 'ws:'}//${location.host}/v1/ws`;
}

/** An HTTP API answer: the JSON body, or the hub's error `code` and message. */
export type ApiResult<T> = { ok: true; body: T } | { ok: false; status: number; code: string; message: string };

export async function getJson<T>(path: string, token: string | undefined): Promise<ApiResult<T>> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (token !== undefined) headers['authorization'] = `Bearer ${token}`;
  let response: Response;
  try {
    response = await fetch(path, { headers });
  } catch (error) {
    return { ok: false, status: 0, code: 'NETWORK', message: error instanceof Error ? error.message : String(error) };
  }
  const body: unknown = await response.json().catch(() => undefined);
  if (response.ok) return { ok: true, body: body as T };
  const error = (body as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
  return {
    ok: false,
    status: response.status,
    code: typeof error?.code === 'string' ? error.code : `HTTP_${response.status}`,
    message: typeof error?.message === 'string' ? error.message : response.statusText,
  };
}

/**
 * Does this token's `sh` claim grant `action` on `sessionId`? Read from the token itself (the hub still checks every
 * request): it only decides whether the page shows append controls.
 */
export function tokenGrants(
  token: string | undefined,
  action: 'read' | 'append' | 'admin',
  sessionId: string,
): boolean {
  if (token === undefined) return true;
  const payload = token.split('.')[1];
  if (payload === undefined) return false;
  let claims: unknown;
  try {
    claims = JSON.parse(atob(payload.replace(/-/g, '+').replace(/_/g, '/')));
  } catch {
    return false;
  }
  const grants = (claims as { sh?: Record<string, unknown> } | null)?.sh;
  const patterns = grants?.[action];
  if (patterns === true) return true;
  if (!Array.isArray(patterns)) return false;
  return patterns.some(
    (pattern) =>
      typeof pattern === 'string' &&
      (pattern === '*' ||
        pattern === sessionId ||
        (pattern.endsWith('/*') && sessionId.startsWith(pattern.slice(0, -1)))),
  );
}
