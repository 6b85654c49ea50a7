import { hasLoneSurrogate } from '../../shared/check-helpers.ts';
import { StoreRequestError } from './event-store.ts';

/** Longest accepted session id, in Unicode code points. */
export const MAX_SESSION_ID_LENGTH = 256;

// C0 and C1 control characters and DEL.
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/u;

/**
 * Why `sessionId` is not an acceptable session id, or `undefined` when it is.
 *
 * Rule: a string of 1 to 256 code points, well-formed Unicode (no lone surrogates: the id must survive UTF-8),
 * no control characters (U+0000–U+001F, U+007F–U+009F), and no `{` or `}` (the Redis engine wraps the id in a
 * hash tag `{<id>}` so that all keys of a session land in one Cluster slot; a brace would cut the tag short).
 */
export function sessionIdProblem(sessionId: unknown): string | undefined {
  if (typeof sessionId !== 'string') return 'a session id must be a string';
  if (sessionId.length === 0) return 'a session id must not be empty';
  if (hasLoneSurrogate(sessionId)) return 'a session id must be well-formed Unicode (no lone surrogates)';
  let codePoints = 0;
  for (const _ of sessionId) codePoints++;
  if (codePoints > MAX_SESSION_ID_LENGTH) {
    return `a session id must be at most ${MAX_SESSION_ID_LENGTH} characters`;
  }
  if (CONTROL_CHARACTER.test(sessionId)) return 'a session id must not contain control characters';
  if (sessionId.includes('{') || sessionId.includes('}')) return 'a session id must not contain "{" or "}"';
  return undefined;
}

/** Throws `StoreRequestError` (code `BAD_REQUEST`) when `sessionId` breaks the rule of `sessionIdProblem`. */
export function validateSessionId(sessionId: unknown): asserts sessionId is string {
  const problem = sessionIdProblem(sessionId);
  if (problem !== undefined) throw new StoreRequestError(problem);
}
