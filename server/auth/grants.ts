import { AuthFailureReason, unauthorized } from './auth-error.ts';

/**
 * Per-session rights carried by a token, in the `sh` claim:
 *
 * ```json
 * { "sh": { "read": ["acme/*", "s-123"], "append": ["acme/agent-7"], "admin": ["acme/*"] } }
 * ```
 *
 * Each list holds session patterns:
 * - an exact session id: `"s-123"`;
 * - a prefix ending in `/*`: `"acme/*"` matches every session id that starts with `acme/` (at any depth, e.g.
 *   `acme/s-1` and `acme/team/s-2`), never `acme` itself nor `acme-other/...`;
 * - `"*"`: every session.
 * `*` anywhere else is rejected (no globbing), so a pattern never matches more than it says.
 *
 * Actions are independent: `append` does NOT imply `read`, and `admin` (list and delete sessions) implies neither;
 * `redact` (replace events' data by placeholders, docs/security.md#redaction) is granted by `redact` or by `admin`.
 * A writer that also reads its session needs both. `admin: true` is short for `admin: ["*"]`.
 * Unknown keys in `sh` are rejected, so a typo (`"reads"`) fails loudly instead of granting nothing.
 */
export const GRANTS_CLAIM = 'sh';

export type GrantAction = 'read' | 'append' | 'admin' | 'redact';
export const GRANT_ACTIONS: readonly GrantAction[] = ['read', 'append', 'admin', 'redact'];

/** Parsed grants: for each action, the session patterns it covers. */
export type Grants = { readonly [A in GrantAction]: readonly string[] };

/** Every right on every session (the principal of a hub running without auth). */
export const ALL_GRANTS: Grants = Object.freeze({
  read: Object.freeze(['*']),
  append: Object.freeze(['*']),
  admin: Object.freeze(['*']),
  redact: Object.freeze(['*']),
});

/** Longest pattern accepted. */
export const MAX_PATTERN_LENGTH = 512;
/** Most patterns per action. */
export const MAX_PATTERNS_PER_ACTION = 1000;

/** Does `pattern` cover `sessionId`? */
export function patternMatches(pattern: string, sessionId: string): boolean {
  if (pattern === '*') return true;
  if (pattern.endsWith('/*')) {
    const prefix = pattern.slice(0, -1);
    return sessionId.length > prefix.length && sessionId.startsWith(prefix);
  }
  return pattern === sessionId;
}

/** May the holder of `grants` perform `action` on `sessionId`? Pure. */
export function can(grants: Grants, action: GrantAction, sessionId: string): boolean {
  if (action === 'redact' && can(grants, 'admin', sessionId)) return true; // admins may redact
  return grants[action].some((pattern) => patternMatches(pattern, sessionId));
}

/** May the holder perform `action` on every session (e.g. list all sessions)? */
export function canAll(grants: Grants, action: GrantAction): boolean {
  return grants[action].includes('*');
}

/** Why a pattern is malformed, or undefined when it is fine. */
export function patternProblem(pattern: unknown): string | undefined {
  if (typeof pattern !== 'string') return 'is not a string';
  if (pattern.length === 0) return 'is empty';
  if (pattern.length > MAX_PATTERN_LENGTH) return `is longer than ${MAX_PATTERN_LENGTH} characters`;
  const body = pattern === '*' ? '' : pattern.endsWith('/*') ? pattern.slice(0, -2) : pattern;
  if (pattern !== '*' && pattern.endsWith('/*') && body.length === 0) return 'has an empty prefix before /*';
  if (body.includes('*')) return 'uses * other than as "*" or a trailing "/*"';
  return undefined;
}

function parsePatternList(value: unknown, action: GrantAction): readonly string[] {
  if (action === 'admin' && typeof value === 'boolean') return value ? ['*'] : [];
  if (!Array.isArray(value)) {
    const expected = action === 'admin' ? 'a boolean or an array of session patterns' : 'an array of session patterns';
    throw badGrants(`${GRANTS_CLAIM}.${action} must be ${expected}`);
  }
  if (value.length > MAX_PATTERNS_PER_ACTION) {
    throw badGrants(`${GRANTS_CLAIM}.${action} has more than ${MAX_PATTERNS_PER_ACTION} patterns`);
  }
  const patterns: string[] = [];
  for (const [index, pattern] of value.entries()) {
    const problem = patternProblem(pattern);
    if (problem !== undefined) throw badGrants(`${GRANTS_CLAIM}.${action}[${index}] ${problem}`);
    patterns.push(pattern as string);
  }
  return Object.freeze(patterns);
}

/**
 * Parse the `sh` claim into `Grants`. Missing actions grant nothing. Throws `AuthError` (`UNAUTHORIZED`,
 * reason `bad-grants`) when the claim is not an object, has unknown keys, or holds a malformed pattern.
 */
export function parseGrants(claim: unknown): Grants {
  if (typeof claim !== 'object' || claim === null || Array.isArray(claim)) {
    throw badGrants(`the ${GRANTS_CLAIM} claim must be an object`);
  }
  const entries = Object.entries(claim);
  for (const [key] of entries) {
    if (!(GRANT_ACTIONS as readonly string[]).includes(key)) {
      throw badGrants(`${GRANTS_CLAIM} has an unknown key ${JSON.stringify(key.slice(0, 64))}`);
    }
  }
  const record = claim as Readonly<Record<string, unknown>>;
  const listOf = (action: GrantAction): readonly string[] =>
    record[action] === undefined ? Object.freeze([]) : parsePatternList(record[action], action);
  return Object.freeze({
    read: listOf('read'),
    append: listOf('append'),
    admin: listOf('admin'),
    redact: listOf('redact'),
  });
}

function badGrants(message: string): Error {
  return unauthorized(AuthFailureReason.BAD_GRANTS, `invalid grants: ${message}`, { claim: GRANTS_CLAIM });
}
