/**
 * Retention rules (docs/operations.md#retention): how long a session is kept after its last activity. One default
 * (`--retain-for 30d`) and per-prefix rules (`--retain acme/=90d`, `--retain vip/=never`); the longest prefix that
 * starts a session's id wins, then the default; no rule at all keeps the session.
 */

/** One per-prefix rule: sessions whose id starts with `prefix` are kept `retainMs` after their last activity. */
export interface RetentionRule {
  readonly prefix: string;
  /** Undefined: kept forever (`never`). */
  readonly retainMs: number | undefined;
}

/** Retention of a hub (`HubConfig.retention`). Without `retainForMs` and rules, nothing ever expires. */
export interface RetentionConfig {
  /** How long any session is kept after its last activity (ms). Undefined: forever, unless a rule says otherwise. */
  readonly retainForMs?: number;
  /** Per-prefix rules; the longest matching prefix wins over `retainForMs`. */
  readonly rules?: readonly RetentionRule[];
  /** How long the tombstone of an expired session is kept (reads say SESSION_EXPIRED meanwhile). Default 30 days. */
  readonly expiredTtlMs?: number;
  /** How often a node tries to sweep (one node sweeps at a time, under a lease). Default 60 s. */
  readonly sweepIntervalMs?: number;
  /** Sessions looked at per store step of a sweep. Default 500. */
  readonly sweepBatch?: number;
  /** The sweeper's clock (epoch ms): tests drive time with it. Default `Date.now`. */
  readonly clock?: () => number;
  /**
   * Called once for each session this node expired, after its hot data is gone: where the cold tier's copy is
   * deleted. A failure is counted (`retention_sweep_errors_total`) and logged; the session stays expired.
   */
  readonly onExpired?: (sessionId: string) => Promise<void>;
}

export const DEFAULT_EXPIRED_TTL_MS = 30 * 24 * 3600 * 1000;
export const DEFAULT_SWEEP_INTERVAL_MS = 60_000;
export const DEFAULT_SWEEP_BATCH = 500;

/** Longest duration taken: 100 years. */
const MAX_DURATION_MS = 100 * 366 * 24 * 3600 * 1000;

const UNIT_MS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 7 * 86_400_000,
};

/** A retention rule or duration that cannot be taken; the message says what is expected. */
export class RetentionRuleError extends Error {
  override readonly name = 'RetentionRuleError';
}

/** `30d`, `12h`, `90m`, `45s`, `500ms`, `2w` (an integer and a unit) in ms; throws `RetentionRuleError`. */
export function parseDuration(text: string, what = 'duration'): number {
  const match = /^(\d{1,12})(ms|s|m|h|d|w)$/.exec(text.trim());
  const value = match === null ? Number.NaN : Number(match[1]) * UNIT_MS[match[2]!]!;
  if (!Number.isSafeInteger(value) || value <= 0 || value > MAX_DURATION_MS) {
    throw new RetentionRuleError(
      `invalid ${what} ${JSON.stringify(text)}: expected a positive integer and a unit (ms, s, m, h, d, w), e.g. 30d`,
    );
  }
  return value;
}

/** `<prefix>=<duration>` or `<prefix>=never`, e.g. `acme/=90d`; throws `RetentionRuleError`. */
export function parseRetentionRule(text: string): RetentionRule {
  const equals = text.lastIndexOf('=');
  const prefix = equals < 0 ? '' : text.slice(0, equals);
  const duration = equals < 0 ? '' : text.slice(equals + 1).trim();
  // eslint-disable-next-line no-control-regex
  if (equals < 0 || prefix === '' || prefix.length > 256 || /[{}\u0000-\u001f\u007f]/u.test(prefix)) {
    throw new RetentionRuleError(
      `invalid retention rule ${JSON.stringify(text)}: expected <session id prefix>=<duration>, e.g. acme/=90d ` +
        '(or acme/=never)',
    );
  }
  if (duration === 'never') return { prefix, retainMs: undefined };
  return { prefix, retainMs: parseDuration(duration, `duration of the rule for ${JSON.stringify(prefix)}`) };
}

/** The resolved rules: how long each session is kept (`retainMsOf`), and whether any session ever expires. */
export class RetentionPolicy {
  readonly defaultMs: number | undefined;
  /** Longest prefix first. */
  readonly rules: readonly RetentionRule[];

  constructor(retainForMs: number | undefined, rules: readonly RetentionRule[] = []) {
    if (retainForMs !== undefined && (!Number.isSafeInteger(retainForMs) || retainForMs <= 0)) {
      throw new RetentionRuleError('retainForMs must be a positive integer number of ms');
    }
    const seen = new Set<string>();
    for (const rule of rules) {
      if (seen.has(rule.prefix)) {
        throw new RetentionRuleError(`two retention rules for the prefix ${JSON.stringify(rule.prefix)}`);
      }
      seen.add(rule.prefix);
      const ms = rule.retainMs;
      if (ms !== undefined && (!Number.isSafeInteger(ms) || ms <= 0)) {
        throw new RetentionRuleError(`the rule for ${JSON.stringify(rule.prefix)} needs a positive duration`);
      }
    }
    this.defaultMs = retainForMs;
    this.rules = [...rules].sort((x, y) => y.prefix.length - x.prefix.length);
  }

  /** Whether some session may expire (a default, or a rule with a duration). */
  get active(): boolean {
    return this.defaultMs !== undefined || this.rules.some((rule) => rule.retainMs !== undefined);
  }

  /** How long `sessionId` is kept after its last activity (ms); undefined: forever. Longest prefix wins. */
  retainMsOf(sessionId: string): number | undefined {
    for (const rule of this.rules) if (sessionId.startsWith(rule.prefix)) return rule.retainMs;
    return this.defaultMs;
  }
}
