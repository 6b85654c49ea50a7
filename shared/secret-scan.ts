import { RE2JS } from 're2js';
import { REDACTED_TEXT } from './redaction.ts';
import type { EventDraft } from './events.ts';
import type { JsonValue } from './json.ts';

/** What the hub does with a secret found in an append (`serve --secrets`): default `off`. */
export type SecretMode = 'off' | 'redact' | 'reject';

export interface SecretScanConfig {
  readonly mode: SecretMode;
  /** More patterns (JavaScript regular expression sources), besides the built-in ones. */
  readonly patterns?: readonly string[];
}

/** Most user patterns, and the longest one. */
export const MAX_SECRET_PATTERNS = 32;
export const MAX_SECRET_PATTERN_LENGTH = 256;

/**
 * The built-in patterns: each linear in the text (no nested or overlapping quantifiers). A private-key block is
 * found by its header and cut to its footer (or to the end of the string) without a regular expression over it.
 */
const BUILT_IN: readonly { readonly name: string; readonly pattern: RegExp }[] = [
  { name: 'aws-access-key', pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g },
  { name: 'api-key-sk', pattern: /\bsk-[A-Za-z0-9_-]{20,}/g },
  { name: 'github-token', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})/g },
  { name: 'bearer-token', pattern: /\bBearer [A-Za-z0-9._~+/-]{16,}=*/g },
];
/** A pattern the scanner runs: whether it occurs in a text, and the text with each match replaced. */
interface ScanPattern {
  readonly name: string;
  found(text: string): boolean;
  replace(text: string, by: (match: string) => string): string;
}

function builtIn(name: string, pattern: RegExp): ScanPattern {
  return {
    name,
    found: (text) => {
      pattern.lastIndex = 0;
      return pattern.test(text);
    },
    replace: (text, by) => {
      pattern.lastIndex = 0;
      return text.replace(pattern, by);
    },
  };
}

/**
 * A user pattern runs on RE2 (re2js: time linear in the text, whatever the pattern), never on the backtracking
 * `RegExp`: the shape checks below refuse the known exponential forms with a clear message, but shapes they miss
 * (`((a+))+b`, `(a?){25}a{25}`, `\s*\s*\s*…x`) stalled the node for seconds to hours on one event.
 */
function userPattern(name: string, source: string): ScanPattern {
  const re = RE2JS.compile(source);
  return {
    name,
    found: (text) => re.matcher(text).find(),
    replace: (text, by) => re.matcher(text).replaceAll((match: string) => by(match)),
  };
}

const PRIVATE_KEY_HEADER = /-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY-----/g;
const PRIVATE_KEY_END = '-----END';

/**
 * Why a user pattern is refused, or undefined: too long, not a regular expression, or a shape known to
 * backtrack exponentially (a quantified group that holds a quantifier or an alternation, or a backreference).
 */
export function secretPatternProblem(source: string): string | undefined {
  if (source.length === 0 || source.length > MAX_SECRET_PATTERN_LENGTH) {
    return `must be 1 to ${MAX_SECRET_PATTERN_LENGTH} characters`;
  }
  try {
    new RegExp(source, 'gu');
  } catch (error) {
    return `is not a regular expression (${(error as Error).message})`;
  }
  const group = String.raw`\((?:[^()\\]|\\.)*`;
  if (new RegExp(String.raw`${group}(?:[+*]|\{\d+,?\d*\})(?:[^()\\]|\\.)*\)(?:[+*]|\{\d+,)`).test(source)) {
    return 'nests quantifiers (exponential backtracking)';
  }
  if (new RegExp(String.raw`${group}\|(?:[^()\\]|\\.)*\)(?:[+*]|\{\d+,)`).test(source)) {
    return 'repeats an alternation (exponential backtracking)';
  }
  if (/\\[1-9]|\\k</.test(source)) return 'uses a backreference';
  try {
    RE2JS.compile(source);
  } catch (error) {
    return `is not a regular expression of the RE2 syntax (${(error as Error).message})`;
  }
  return undefined;
}

/** What a scan found in one append. */
export interface SecretFinding {
  /** The append's events, with each match replaced by `[redacted]`. */
  readonly events: readonly EventDraft[];
  /** Indexes (in the append) of the events that held a match, ascending. */
  readonly indexes: readonly number[];
  /** Names of the patterns that matched (`user-<n>` for the n-th user pattern). */
  readonly names: readonly string[];
  /** The removed matches, in order (for a digest; never to be stored or logged). */
  readonly removed: readonly string[];
}

/** Scans the strings of an append's event data for secrets (`serve --secrets`, docs/security.md). Pure. */
export class SecretScanner {
  readonly mode: SecretMode;
  readonly #patterns: readonly ScanPattern[];

  constructor(config: SecretScanConfig) {
    this.mode = config.mode;
    const user = config.patterns ?? [];
    if (user.length > MAX_SECRET_PATTERNS) throw new Error(`at most ${MAX_SECRET_PATTERNS} secret patterns`);
    const compiled = user.map((source, index) => {
      const problem = secretPatternProblem(source);
      if (problem !== undefined) throw new Error(`secret pattern ${JSON.stringify(source)} ${problem}`);
      return userPattern(`user-${index + 1}`, source);
    });
    this.#patterns = [...BUILT_IN.map(({ name, pattern }) => builtIn(name, pattern)), ...compiled];
  }

  /** The name of every pattern (what a finding's `names` may hold): the built-in ones, `private-key`, the user's. */
  get patternNames(): readonly string[] {
    return ['private-key', ...this.#patterns.map((pattern) => pattern.name)];
  }

  /** The append with its secrets replaced, and what was found; undefined when there is none. */
  scan(events: readonly EventDraft[]): SecretFinding | undefined {
    const names = new Set<string>();
    const removed: string[] = [];
    const indexes: number[] = [];
    const out = events.map((event, index) => {
      const before = removed.length;
      const data = this.#value(event.data as JsonValue, names, removed);
      if (removed.length === before) return event;
      indexes.push(index);
      return { ...event, data };
    });
    if (indexes.length === 0) return undefined;
    return { events: out, indexes, names: [...names], removed };
  }

  #value(value: JsonValue, names: Set<string>, removed: string[]): JsonValue {
    if (typeof value === 'string') return this.#text(value, names, removed);
    if (Array.isArray(value)) {
      const before = removed.length;
      const items = (value as readonly JsonValue[]).map((item) => this.#value(item, names, removed));
      return removed.length === before ? value : items;
    }
    if (value === null || typeof value !== 'object') return value;
    const before = removed.length;
    const entries = Object.entries(value).map(([key, item]) => [key, this.#value(item, names, removed)] as const);
    if (removed.length === before) return value;
    const object: Record<string, JsonValue> = {};
    for (const [key, item] of entries) {
      Object.defineProperty(object, key, { value: item, enumerable: true, writable: true, configurable: true });
    }
    return object;
  }

  #text(text: string, names: Set<string>, removed: string[]): string {
    let result = cutPrivateKeys(text, names, removed);
    for (const pattern of this.#patterns) {
      if (!pattern.found(result)) continue;
      names.add(pattern.name);
      result = pattern.replace(result, (match) => {
        removed.push(match);
        return REDACTED_TEXT;
      });
    }
    return result;
  }
}

/** Each private-key block, from its header to its footer (or the end of the text), becomes the marker. */
function cutPrivateKeys(text: string, names: Set<string>, removed: string[]): string {
  if (!text.includes('PRIVATE KEY-----')) return text;
  let out = '';
  let from = 0;
  PRIVATE_KEY_HEADER.lastIndex = 0;
  for (let match = PRIVATE_KEY_HEADER.exec(text); match !== null; match = PRIVATE_KEY_HEADER.exec(text)) {
    const footer = text.indexOf(PRIVATE_KEY_END, PRIVATE_KEY_HEADER.lastIndex);
    const close = footer < 0 ? -1 : text.indexOf('-----', footer + PRIVATE_KEY_END.length);
    const end = close < 0 ? text.length : close + 5;
    names.add('private-key');
    removed.push(text.slice(match.index, end));
    out += text.slice(from, match.index) + REDACTED_TEXT;
    from = end;
    PRIVATE_KEY_HEADER.lastIndex = end;
  }
  return out + text.slice(from);
}
