import type { IncomingMessage } from 'node:http';
import { AuthError } from './auth-error.ts';
import { toHubAuthError } from './hub-auth.ts';
import { tokenFromRequest } from './token-sources.ts';

/**
 * The token of an HTTP or upgrade request: `Authorization: Bearer <token>`, else the `token` query parameter.
 * An `Authorization` header with another scheme (or several of them) throws UNAUTHORIZED (`bad-auth-scheme`)
 * instead of being ignored, so a client that sent credentials is told why they were not used.
 */
export function requestToken(request: IncomingMessage): string | undefined {
  try {
    return tokenFromRequest(request);
  } catch (error) {
    throw error instanceof AuthError ? toHubAuthError(error) : error;
  }
}
